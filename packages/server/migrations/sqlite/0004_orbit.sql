-- 0004 Orbit 对外结果流：结果流、结果事件、对外订阅（游标与Webhook）、投递记录。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock; durations are INTEGER microseconds.
-- Design: docs/design/orbit.md.

CREATE TABLE orbit_streams ( -- 结果流：按序号排列、可保留的任务与流程结果日志
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 结果流ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  name TEXT NOT NULL, -- 结果流名，命名空间内唯一（精确字节比较）
  application_id INTEGER NOT NULL, -- 所属应用ID（只有该应用的任务与流程可写入）
  is_default INTEGER NOT NULL DEFAULT 0, -- 是否为应用的默认结果流（与应用同名，随应用创建）
  next_seq INTEGER NOT NULL DEFAULT 1, -- 下一个事件序号；追加时在行锁下读取并递增，无空洞
  earliest_seq INTEGER NOT NULL DEFAULT 1, -- 仍保留的最早事件序号（保留策略删除后上移）
  retention_max_age_us INTEGER NULL, -- 保留策略：事件最长保留时间（微秒）；NULL表示不按时间删除
  retention_max_events INTEGER NULL, -- 保留策略：最多保留事件数；NULL表示不按数量删除
  revision INTEGER NOT NULL DEFAULT 1, -- 配置版本，每次配置变更加一
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_orbit_streams_name ON orbit_streams (namespace_id, name);
CREATE INDEX ix_orbit_streams_application ON orbit_streams (application_id, is_default);

CREATE TABLE orbit_result_events ( -- 结果事件：在结果事务内追加，冻结快照
  stream_id INTEGER NOT NULL, -- 结果流ID
  seq INTEGER NOT NULL, -- 流内序号，从1开始，连续无空洞，提交顺序即序号顺序
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  type TEXT NOT NULL, -- 事件类型：task.succeeded/task.failed/task.cancelled/task.needs_review，将来 instance.*
  source_kind TEXT NOT NULL, -- 来源类型：task/instance
  source_id INTEGER NOT NULL, -- 来源ID（任务ID或流程实例ID）
  source_revision INTEGER NOT NULL, -- 来源在结果时刻的状态版本；与来源一起唯一，重报不会追加第二条
  at INTEGER NOT NULL, -- 追加时间（数据库时钟，Unix微秒）
  body TEXT NOT NULL, -- 冻结的事件JSON文本（含序号、状态、结果或错误，保留数字原文），从不按后来的任务状态重建
  PRIMARY KEY (stream_id, seq)
);
CREATE UNIQUE INDEX uq_orbit_result_events_source ON orbit_result_events (stream_id, source_kind, source_id, source_revision);
CREATE INDEX ix_orbit_result_events_at ON orbit_result_events (stream_id, at);

CREATE TABLE orbit_subscriptions ( -- 对外订阅：服务端游标，可选Webhook推送
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 订阅ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  stream_id INTEGER NOT NULL, -- 结果流ID
  name TEXT NOT NULL, -- 订阅名，结果流内唯一
  acked_seq INTEGER NOT NULL DEFAULT 0, -- 已确认到的序号（只增不减）；从其后读取
  webhook_url TEXT NULL, -- Webhook地址（http/https）；NULL表示拉取式订阅
  secret TEXT NULL, -- 当前签名密钥（HMAC-SHA256）；仅Webhook订阅有
  previous_secret TEXT NULL, -- 轮换前的旧密钥，宽限期内同时签名
  previous_secret_until INTEGER NULL, -- 旧密钥宽限期结束时间（Unix微秒）
  state TEXT NOT NULL DEFAULT 'ACTIVE', -- 状态：ACTIVE/FAILING（持续失败，停止投递，可恢复）
  consecutive_failures INTEGER NOT NULL DEFAULT 0, -- 连续投递失败次数
  next_attempt_at INTEGER NOT NULL DEFAULT 0, -- 下次可投递时间（Unix微秒；退避期间在未来）
  lease_owner TEXT NULL, -- 投递租约持有者（节点ID）；同一订阅同时只有一批在途
  lease_until INTEGER NULL, -- 投递租约到期时间（Unix微秒）
  failing_since INTEGER NULL, -- 本轮连续失败开始时间（Unix微秒）
  last_error TEXT NULL, -- 最近一次投递失败的说明（状态码或网络错误）
  revision INTEGER NOT NULL DEFAULT 1, -- 版本，每次变更加一
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_orbit_subscriptions_name ON orbit_subscriptions (stream_id, name);
CREATE INDEX ix_orbit_subscriptions_due ON orbit_subscriptions (state, next_attempt_at);

CREATE TABLE orbit_deliveries ( -- Webhook投递记录：每次尝试一行，供API查看
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 投递记录ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  subscription_id INTEGER NOT NULL, -- 订阅ID
  first_seq INTEGER NOT NULL, -- 本批第一个事件序号
  last_seq INTEGER NOT NULL, -- 本批最后一个事件序号
  outcome TEXT NOT NULL, -- 结果：DELIVERED（2xx）/FAILED
  http_status INTEGER NULL, -- HTTP状态码；网络错误时为NULL
  error TEXT NULL, -- 失败说明（状态码或网络错误，不含载荷）
  duration_us INTEGER NOT NULL, -- 耗时（微秒）
  at INTEGER NOT NULL -- 投递开始时间（Unix微秒）
);
CREATE INDEX ix_orbit_deliveries_subscription ON orbit_deliveries (subscription_id, id);

ALTER TABLE tasks ADD COLUMN result_stream_id INTEGER NULL; -- 结果写入的结果流ID（提交时确定；NULL表示应用的默认结果流）

INSERT INTO orbit_streams (namespace_id, name, application_id, is_default, retention_max_age_us, created_at, updated_at)
SELECT a.namespace_id, a.name, a.id, 1, 604800000000, a.created_at, a.created_at
FROM applications a
WHERE NOT EXISTS (SELECT 1 FROM orbit_streams s WHERE s.namespace_id = a.namespace_id AND s.name = a.name);

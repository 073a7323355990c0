-- 0004 Orbit 对外结果流：结果流、结果事件、对外订阅（游标与Webhook）、投递记录。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock; durations are BIGINT microseconds.
-- Design: docs/design/orbit.md.

CREATE TABLE IF NOT EXISTS orbit_streams (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '结果流ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  name VARCHAR(63) NOT NULL COMMENT '结果流名，命名空间内唯一（精确字节比较）',
  application_id BIGINT NOT NULL COMMENT '所属应用ID（只有该应用的任务与流程可写入）',
  is_default TINYINT NOT NULL DEFAULT 0 COMMENT '是否为应用的默认结果流（与应用同名，随应用创建）',
  next_seq BIGINT NOT NULL DEFAULT 1 COMMENT '下一个事件序号；追加时在行锁下读取并递增，无空洞',
  earliest_seq BIGINT NOT NULL DEFAULT 1 COMMENT '仍保留的最早事件序号（保留策略删除后上移）',
  retention_max_age_us BIGINT NULL COMMENT '保留策略：事件最长保留时间（微秒）；NULL表示不按时间删除',
  retention_max_events BIGINT NULL COMMENT '保留策略：最多保留事件数；NULL表示不按数量删除',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '配置版本，每次配置变更加一',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_orbit_streams_name (namespace_id, name),
  KEY ix_orbit_streams_application (application_id, is_default)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='结果流：按序号排列、可保留的任务与流程结果日志';

CREATE TABLE IF NOT EXISTS orbit_result_events (
  stream_id BIGINT NOT NULL COMMENT '结果流ID',
  seq BIGINT NOT NULL COMMENT '流内序号，从1开始，连续无空洞，提交顺序即序号顺序',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  type VARCHAR(32) NOT NULL COMMENT '事件类型：task.succeeded/task.failed/task.cancelled/task.needs_review，将来 instance.*',
  source_kind VARCHAR(16) NOT NULL COMMENT '来源类型：task/instance',
  source_id BIGINT NOT NULL COMMENT '来源ID（任务ID或流程实例ID）',
  source_revision BIGINT NOT NULL COMMENT '来源在结果时刻的状态版本；与来源一起唯一，重报不会追加第二条',
  at BIGINT NOT NULL COMMENT '追加时间（数据库时钟，Unix微秒）',
  body MEDIUMTEXT NOT NULL COMMENT '冻结的事件JSON文本（含序号、状态、结果或错误，保留数字原文），从不按后来的任务状态重建',
  PRIMARY KEY (stream_id, seq),
  UNIQUE KEY uq_orbit_result_events_source (stream_id, source_kind, source_id, source_revision),
  KEY ix_orbit_result_events_at (stream_id, at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='结果事件：在结果事务内追加，冻结快照';

CREATE TABLE IF NOT EXISTS orbit_subscriptions (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '订阅ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  stream_id BIGINT NOT NULL COMMENT '结果流ID',
  name VARCHAR(63) NOT NULL COMMENT '订阅名，结果流内唯一',
  acked_seq BIGINT NOT NULL DEFAULT 0 COMMENT '已确认到的序号（只增不减）；从其后读取',
  webhook_url VARCHAR(2048) NULL COMMENT 'Webhook地址（http/https）；NULL表示拉取式订阅',
  secret VARCHAR(128) NULL COMMENT '当前签名密钥（HMAC-SHA256）；仅Webhook订阅有',
  previous_secret VARCHAR(128) NULL COMMENT '轮换前的旧密钥，宽限期内同时签名',
  previous_secret_until BIGINT NULL COMMENT '旧密钥宽限期结束时间（Unix微秒）',
  state VARCHAR(16) NOT NULL DEFAULT 'ACTIVE' COMMENT '状态：ACTIVE/FAILING（持续失败，停止投递，可恢复）',
  consecutive_failures INT NOT NULL DEFAULT 0 COMMENT '连续投递失败次数',
  next_attempt_at BIGINT NOT NULL DEFAULT 0 COMMENT '下次可投递时间（Unix微秒；退避期间在未来）',
  lease_owner VARCHAR(200) NULL COMMENT '投递租约持有者（节点ID）；同一订阅同时只有一批在途',
  lease_until BIGINT NULL COMMENT '投递租约到期时间（Unix微秒）',
  failing_since BIGINT NULL COMMENT '本轮连续失败开始时间（Unix微秒）',
  last_error VARCHAR(512) NULL COMMENT '最近一次投递失败的说明（状态码或网络错误）',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '版本，每次变更加一',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_orbit_subscriptions_name (stream_id, name),
  KEY ix_orbit_subscriptions_due (state, next_attempt_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='对外订阅：服务端游标，可选Webhook推送';

CREATE TABLE IF NOT EXISTS orbit_deliveries (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '投递记录ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  subscription_id BIGINT NOT NULL COMMENT '订阅ID',
  first_seq BIGINT NOT NULL COMMENT '本批第一个事件序号',
  last_seq BIGINT NOT NULL COMMENT '本批最后一个事件序号',
  outcome VARCHAR(16) NOT NULL COMMENT '结果：DELIVERED（2xx）/FAILED',
  http_status INT NULL COMMENT 'HTTP状态码；网络错误时为NULL',
  error VARCHAR(512) NULL COMMENT '失败说明（状态码或网络错误，不含载荷）',
  duration_us BIGINT NOT NULL COMMENT '耗时（微秒）',
  at BIGINT NOT NULL COMMENT '投递开始时间（Unix微秒）',
  PRIMARY KEY (id),
  KEY ix_orbit_deliveries_subscription (subscription_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='Webhook投递记录：每次尝试一行，供API查看';

ALTER TABLE tasks ADD COLUMN IF NOT EXISTS result_stream_id BIGINT NULL COMMENT '结果写入的结果流ID（提交时确定；NULL表示应用的默认结果流）';

INSERT INTO orbit_streams (namespace_id, name, application_id, is_default, retention_max_age_us, created_at, updated_at)
SELECT a.namespace_id, a.name, a.id, 1, 604800000000, a.created_at, a.created_at
FROM applications a
WHERE NOT EXISTS (SELECT 1 FROM orbit_streams s WHERE s.namespace_id = a.namespace_id AND s.name = a.name);

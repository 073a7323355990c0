-- 0009 流程信号：按名称、关联键精确字节与载荷版本投递给等待中的 SIGNAL/POLL 最终信号；未匹配时可在缓冲窗口内保留。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock.
-- Zero foreign keys: every relation is checked in code within one namespace.
-- Design: docs/design/signals.md.

CREATE TABLE weave_signals ( -- 流程信号：受理后投递给匹配的等待，或在缓冲窗口内等待新的匹配等待
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 信号ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  name TEXT NOT NULL, -- 信号名（精确比较：大小写与尾随空格都有区别）
  correlation_key BLOB NULL, -- 关联键的精确字节（新值不超过512字节，留有旧数据余量，从不截断）；直接发给实例的信号为NULL
  instance_id INTEGER NULL, -- 直接发给某个实例时的实例ID；按关联键发送时为NULL
  payload TEXT NOT NULL, -- 信号载荷JSON原文（保留数字原文，不超过256 KiB）
  payload_version INTEGER NOT NULL, -- 载荷版本：必须与等待的载荷版本相同才匹配
  state TEXT NOT NULL, -- 信号状态：DELIVERED（已投递）/BUFFERED（未匹配，缓冲中）/CONSUMED（缓冲后被新等待取走）/UNMATCHED（未匹配且不缓冲）
  matched_count INTEGER NOT NULL DEFAULT 0, -- 投递到的等待数
  admitted_at INTEGER NOT NULL, -- 可靠受理时间：持有相关锁后读取的数据库时间（Unix微秒）
  expires_at INTEGER NULL, -- 缓冲窗口结束时间 = 受理时间 + ttl；仅 BUFFERED 有（Unix微秒）
  consumed_wait_id INTEGER NULL, -- 取走缓冲信号的等待ID
  created_by INTEGER NULL, -- 发送所用凭据ID（审计）
  created_at INTEGER NOT NULL, -- 写入时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE INDEX ix_weave_signals_buffer ON weave_signals (namespace_id, name, correlation_key, state, admitted_at);

CREATE INDEX ix_weave_waits_signal ON weave_waits (namespace_id, signal_name, correlation_key, state);

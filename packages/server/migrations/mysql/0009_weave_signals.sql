-- 0009 流程信号：按名称、关联键精确字节与载荷版本投递给等待中的 SIGNAL/POLL 最终信号；未匹配时可在缓冲窗口内保留。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock.
-- Zero foreign keys: every relation is checked in code within one namespace.
-- Design: docs/design/signals.md.

CREATE TABLE IF NOT EXISTS weave_signals (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '信号ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  name VARCHAR(63) NOT NULL COMMENT '信号名（精确比较：大小写与尾随空格都有区别）',
  correlation_key VARBINARY(764) NULL COMMENT '关联键的精确字节（新值不超过512字节，留有旧数据余量，从不截断）；直接发给实例的信号为NULL',
  instance_id BIGINT NULL COMMENT '直接发给某个实例时的实例ID；按关联键发送时为NULL',
  payload MEDIUMTEXT NOT NULL COMMENT '信号载荷JSON原文（保留数字原文，不超过256 KiB）',
  payload_version INT NOT NULL COMMENT '载荷版本：必须与等待的载荷版本相同才匹配',
  state VARCHAR(16) NOT NULL COMMENT '信号状态：DELIVERED（已投递）/BUFFERED（未匹配，缓冲中）/CONSUMED（缓冲后被新等待取走）/UNMATCHED（未匹配且不缓冲）',
  matched_count INT NOT NULL DEFAULT 0 COMMENT '投递到的等待数',
  admitted_at BIGINT NOT NULL COMMENT '可靠受理时间：持有相关锁后读取的数据库时间（Unix微秒）',
  expires_at BIGINT NULL COMMENT '缓冲窗口结束时间 = 受理时间 + ttl；仅 BUFFERED 有（Unix微秒）',
  consumed_wait_id BIGINT NULL COMMENT '取走缓冲信号的等待ID',
  created_by BIGINT NULL COMMENT '发送所用凭据ID（审计）',
  created_at BIGINT NOT NULL COMMENT '写入时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  KEY ix_weave_signals_buffer (namespace_id, name, correlation_key, state, admitted_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='流程信号：受理后投递给匹配的等待，或在缓冲窗口内等待新的匹配等待';

CREATE INDEX IF NOT EXISTS ix_weave_waits_signal ON weave_waits (namespace_id, signal_name, correlation_key, state);

-- 0003 Pulse 定时任务：计划（cron + 时区）与每个时间槽的触发记录。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock.
-- Design: docs/design/pulse.md "Schedules".

CREATE TABLE IF NOT EXISTS schedules (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '计划ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  name VARCHAR(63) NOT NULL COMMENT '计划名，命名空间内唯一（精确字节比较）',
  queue_id BIGINT NOT NULL COMMENT '触发时提交任务的队列ID',
  cron VARCHAR(200) NOT NULL COMMENT 'cron表达式（5个字段：分 时 日 月 周）',
  timezone VARCHAR(64) NOT NULL COMMENT 'IANA时区名，如 Europe/Berlin',
  task_template MEDIUMTEXT NOT NULL COMMENT '冻结的任务模板JSON文本（提交字段，创建时校验）',
  overlap VARCHAR(8) NOT NULL COMMENT '重叠策略：skip（上次任务未结束则跳过）/allow',
  catch_up VARCHAR(8) NOT NULL COMMENT '错过时间槽的补发策略：none/latest/all',
  paused TINYINT NOT NULL DEFAULT 0 COMMENT '是否暂停',
  next_slot_at BIGINT NULL COMMENT '下一个待触发时间槽（Unix微秒）；NULL表示不再有时间槽',
  retry_at BIGINT NULL COMMENT '队列或额度已满时，同一时间槽的下次重试时间（Unix微秒）',
  last_slot_at BIGINT NULL COMMENT '最近一次处理的时间槽（Unix微秒）',
  last_task_id BIGINT NULL COMMENT '最近一次触发提交的任务ID（重叠策略据此判断）',
  last_error_code VARCHAR(64) NULL COMMENT '最近一次触发失败的错误码，如 queue_full',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '版本，每次变更加一',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_schedules_name (namespace_id, name),
  KEY ix_schedules_due (paused, next_slot_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='定时计划：按cron与时区提交任务';

CREATE TABLE IF NOT EXISTS schedule_firings (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '触发记录ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  schedule_id BIGINT NOT NULL COMMENT '计划ID',
  slot_at BIGINT NOT NULL COMMENT '时间槽（Unix微秒）；与计划ID一起构成触发的幂等标识',
  outcome VARCHAR(16) NOT NULL COMMENT '结果：SUBMITTED/SKIPPED（重叠跳过）/FAILED（无法提交）',
  task_id BIGINT NULL COMMENT '提交的任务ID；跳过或失败时为NULL',
  error_code VARCHAR(64) NULL COMMENT '失败时的错误码',
  created_at BIGINT NOT NULL COMMENT '记录时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_schedule_firings_slot (schedule_id, slot_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='计划触发记录：每个计划每个时间槽至多一行';

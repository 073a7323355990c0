-- 0003 Pulse 定时任务：计划（cron + 时区）与每个时间槽的触发记录。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock.
-- Design: docs/design/pulse.md "Schedules".

CREATE TABLE schedules ( -- 定时计划：按cron与时区提交任务
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 计划ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  name TEXT NOT NULL, -- 计划名，命名空间内唯一（精确字节比较）
  queue_id INTEGER NOT NULL, -- 触发时提交任务的队列ID
  cron TEXT NOT NULL, -- cron表达式（5个字段：分 时 日 月 周）
  timezone TEXT NOT NULL, -- IANA时区名，如 Europe/Berlin
  task_template TEXT NOT NULL, -- 冻结的任务模板JSON文本（提交字段，创建时校验）
  overlap TEXT NOT NULL, -- 重叠策略：skip（上次任务未结束则跳过）/allow
  catch_up TEXT NOT NULL, -- 错过时间槽的补发策略：none/latest/all
  paused INTEGER NOT NULL DEFAULT 0, -- 是否暂停
  next_slot_at INTEGER NULL, -- 下一个待触发时间槽（Unix微秒）；NULL表示不再有时间槽
  retry_at INTEGER NULL, -- 队列或额度已满时，同一时间槽的下次重试时间（Unix微秒）
  last_slot_at INTEGER NULL, -- 最近一次处理的时间槽（Unix微秒）
  last_task_id INTEGER NULL, -- 最近一次触发提交的任务ID（重叠策略据此判断）
  last_error_code TEXT NULL, -- 最近一次触发失败的错误码，如 queue_full
  revision INTEGER NOT NULL DEFAULT 1, -- 版本，每次变更加一
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_schedules_name ON schedules (namespace_id, name);
CREATE INDEX ix_schedules_due ON schedules (paused, next_slot_at);

CREATE TABLE schedule_firings ( -- 计划触发记录：每个计划每个时间槽至多一行
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 触发记录ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  schedule_id INTEGER NOT NULL, -- 计划ID
  slot_at INTEGER NOT NULL, -- 时间槽（Unix微秒）；与计划ID一起构成触发的幂等标识
  outcome TEXT NOT NULL, -- 结果：SUBMITTED/SKIPPED（重叠跳过）/FAILED（无法提交）
  task_id INTEGER NULL, -- 提交的任务ID；跳过或失败时为NULL
  error_code TEXT NULL, -- 失败时的错误码
  created_at INTEGER NOT NULL -- 记录时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_schedule_firings_slot ON schedule_firings (schedule_id, slot_at);

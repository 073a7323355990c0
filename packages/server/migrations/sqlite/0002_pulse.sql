-- 0002 Pulse：任务、尝试（执行许可）、原始状态事件。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock; durations are microseconds.
-- Design: docs/design/pulse.md.

CREATE TABLE tasks ( -- 任务：Pulse持久化任务
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 任务ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  application_id INTEGER NOT NULL, -- 所属应用ID（应用额度按此计数）
  queue_id INTEGER NOT NULL, -- 所属队列ID
  status TEXT NOT NULL, -- 状态：PENDING/CLAIMED/RUNNING/SUCCEEDED/FAILED/CANCELLED/NEEDS_REVIEW
  revision INTEGER NOT NULL DEFAULT 1, -- 状态版本，每次变更加一并写原始状态事件
  input TEXT NOT NULL, -- 输入JSON文本（原样保存，保留数字原文）
  result TEXT NULL, -- 成功结果JSON文本
  error_code TEXT NULL, -- 失败错误码
  error_message TEXT NULL, -- 失败说明
  idempotent INTEGER NOT NULL DEFAULT 0, -- 是否声明幂等（效果不确定时可自动重试）
  priority INTEGER NOT NULL DEFAULT 0, -- 优先级，越大越先领取
  trace_key TEXT NULL, -- 追踪键
  resource_key TEXT NULL, -- 资源键（精确字节比较）
  deadline_at INTEGER NOT NULL, -- 绝对截止时间（数据库时钟，Unix微秒）
  attempt_timeout_us INTEGER NULL, -- 单次尝试最长时间（微秒）；NULL表示只受截止时间限制
  retry_max_attempts INTEGER NOT NULL, -- 冻结的重试策略：最多尝试次数
  retry_initial_interval_us INTEGER NOT NULL, -- 冻结的重试策略：首次间隔（微秒）
  retry_backoff_coefficient TEXT NOT NULL, -- 冻结的重试策略：退避系数（数字原文）
  retry_max_interval_us INTEGER NOT NULL, -- 冻结的重试策略：最大间隔（微秒）
  retry_non_retryable_codes TEXT NOT NULL, -- 冻结的重试策略：不重试的错误码，空格分隔
  available_at INTEGER NOT NULL, -- 最早可领取时间（Unix微秒；重试等待期间在未来）
  attempt_count INTEGER NOT NULL DEFAULT 0, -- 已创建的尝试数（最新尝试序号）
  charged_attempts INTEGER NOT NULL DEFAULT 0, -- 计入重试预算的尝试数（作废的尝试不计）
  current_attempt_id INTEGER NULL, -- 当前尝试ID；无执行许可时为NULL
  generation INTEGER NOT NULL DEFAULT 0, -- 代次：每次领取加一，旧许可随之失效
  lease_owner TEXT NULL, -- 租约持有者（Worker ID）
  lease_until INTEGER NULL, -- 租约到期时间（Unix微秒），不超过截止时间
  cancel_requested INTEGER NOT NULL DEFAULT 0, -- 是否已请求取消（运行中任务在心跳时得知）
  effect_uncertain INTEGER NOT NULL DEFAULT 0, -- 效果是否不确定（已开始的尝试租约过期）
  owner_kind TEXT NULL, -- 所有者类型，如 workflow_activation；普通任务为NULL
  owner_id INTEGER NULL, -- 所有者ID，如流程激活ID
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL, -- 最后修改时间（Unix微秒）
  finished_at INTEGER NULL -- 进入终态的时间（Unix微秒）
);
CREATE INDEX ix_tasks_claim ON tasks (queue_id, status, priority DESC, available_at, id);
CREATE INDEX ix_tasks_lease ON tasks (status, lease_until);
CREATE INDEX ix_tasks_deadline ON tasks (status, deadline_at);
CREATE INDEX ix_tasks_application ON tasks (application_id, status);
CREATE INDEX ix_tasks_namespace ON tasks (namespace_id, queue_id, id);

CREATE TABLE task_attempts ( -- 任务尝试：每次领取一行，携带执行许可
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 尝试ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  task_id INTEGER NOT NULL, -- 所属任务ID
  attempt_number INTEGER NOT NULL, -- 尝试序号，从1开始
  generation INTEGER NOT NULL, -- 领取时任务的代次
  worker_id TEXT NOT NULL, -- 领取的Worker ID
  permit_hash BLOB NOT NULL, -- 执行许可令牌的SHA-256摘要（令牌本身从不保存）
  status TEXT NOT NULL, -- 状态：CLAIMED/RUNNING/SUCCEEDED/FAILED/NEEDS_REVIEW/CANCELLED/VOID/EXPIRED
  claimed_at INTEGER NOT NULL, -- 领取时间（Unix微秒）
  started_at INTEGER NULL, -- 声明开始产生副作用的时间（Unix微秒）
  lease_until INTEGER NOT NULL, -- 租约到期时间（Unix微秒）
  expires_at INTEGER NOT NULL, -- 许可绝对终止时间：截止时间与尝试超时取小（Unix微秒）
  finished_at INTEGER NULL, -- 结清时间（Unix微秒）
  error_code TEXT NULL, -- 失败或作废的错误码
  completion_digest TEXT NULL, -- 完成请求的规范化SHA-256摘要（识别相同重报）
  receipt TEXT NULL -- 执行回执JSON文本（相同完成重报时原样返回）
);
CREATE UNIQUE INDEX uq_task_attempts_number ON task_attempts (task_id, attempt_number);

CREATE TABLE task_events ( -- 任务原始状态事件：每次状态版本一行
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 事件ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  task_id INTEGER NOT NULL, -- 任务ID
  revision INTEGER NOT NULL, -- 变更后的任务状态版本
  type TEXT NOT NULL, -- 事件类型，如 task.claimed、task.succeeded
  status TEXT NOT NULL, -- 变更后的任务状态
  attempt_id INTEGER NULL, -- 相关尝试ID
  at INTEGER NOT NULL, -- 发生时间（数据库时钟，Unix微秒）
  details TEXT NULL -- 附加信息JSON（错误码等，不含业务载荷）
);
CREATE UNIQUE INDEX uq_task_events_revision ON task_events (task_id, revision);

CREATE TABLE task_resources ( -- 任务资源占用：同一命名空间加资源键同时至多一个已领取或运行中的任务
  namespace_id INTEGER NOT NULL, -- 命名空间ID
  resource_key TEXT NOT NULL, -- 资源键（精确字节比较）
  task_id INTEGER NOT NULL, -- 当前持有资源的任务ID（已领取或运行中）
  acquired_at INTEGER NOT NULL, -- 取得时间（Unix微秒）
  PRIMARY KEY (namespace_id, resource_key)
);

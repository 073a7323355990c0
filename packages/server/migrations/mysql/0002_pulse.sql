-- 0002 Pulse：任务、尝试（执行许可）、原始状态事件。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock; durations are BIGINT microseconds.
-- Design: docs/design/pulse.md.

CREATE TABLE IF NOT EXISTS tasks (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '任务ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  application_id BIGINT NOT NULL COMMENT '所属应用ID（应用额度按此计数）',
  queue_id BIGINT NOT NULL COMMENT '所属队列ID',
  status VARCHAR(16) NOT NULL COMMENT '状态：PENDING/CLAIMED/RUNNING/SUCCEEDED/FAILED/CANCELLED/NEEDS_REVIEW',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '状态版本，每次变更加一并写原始状态事件',
  input MEDIUMTEXT NOT NULL COMMENT '输入JSON文本（原样保存，保留数字原文）',
  result MEDIUMTEXT NULL COMMENT '成功结果JSON文本',
  error_code VARCHAR(64) NULL COMMENT '失败错误码',
  error_message TEXT NULL COMMENT '失败说明',
  idempotent TINYINT NOT NULL DEFAULT 0 COMMENT '是否声明幂等（效果不确定时可自动重试）',
  priority INT NOT NULL DEFAULT 0 COMMENT '优先级，越大越先领取',
  trace_key VARCHAR(200) NULL COMMENT '追踪键',
  resource_key VARCHAR(200) NULL COMMENT '资源键（精确字节比较）',
  deadline_at BIGINT NOT NULL COMMENT '绝对截止时间（数据库时钟，Unix微秒）',
  attempt_timeout_us BIGINT NULL COMMENT '单次尝试最长时间（微秒）；NULL表示只受截止时间限制',
  retry_max_attempts INT NOT NULL COMMENT '冻结的重试策略：最多尝试次数',
  retry_initial_interval_us BIGINT NOT NULL COMMENT '冻结的重试策略：首次间隔（微秒）',
  retry_backoff_coefficient VARCHAR(32) NOT NULL COMMENT '冻结的重试策略：退避系数（数字原文）',
  retry_max_interval_us BIGINT NOT NULL COMMENT '冻结的重试策略：最大间隔（微秒）',
  retry_non_retryable_codes TEXT NOT NULL COMMENT '冻结的重试策略：不重试的错误码，空格分隔',
  available_at BIGINT NOT NULL COMMENT '最早可领取时间（Unix微秒；重试等待期间在未来）',
  attempt_count INT NOT NULL DEFAULT 0 COMMENT '已创建的尝试数（最新尝试序号）',
  charged_attempts INT NOT NULL DEFAULT 0 COMMENT '计入重试预算的尝试数（作废的尝试不计）',
  current_attempt_id BIGINT NULL COMMENT '当前尝试ID；无执行许可时为NULL',
  generation BIGINT NOT NULL DEFAULT 0 COMMENT '代次：每次领取加一，旧许可随之失效',
  lease_owner VARCHAR(200) NULL COMMENT '租约持有者（Worker ID）',
  lease_until BIGINT NULL COMMENT '租约到期时间（Unix微秒），不超过截止时间',
  cancel_requested TINYINT NOT NULL DEFAULT 0 COMMENT '是否已请求取消（运行中任务在心跳时得知）',
  effect_uncertain TINYINT NOT NULL DEFAULT 0 COMMENT '效果是否不确定（已开始的尝试租约过期）',
  owner_kind VARCHAR(32) NULL COMMENT '所有者类型，如 workflow_activation；普通任务为NULL',
  owner_id BIGINT NULL COMMENT '所有者ID，如流程激活ID',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  finished_at BIGINT NULL COMMENT '进入终态的时间（Unix微秒）',
  PRIMARY KEY (id),
  KEY ix_tasks_claim (queue_id, status, priority DESC, available_at, id),
  KEY ix_tasks_lease (status, lease_until),
  KEY ix_tasks_deadline (status, deadline_at),
  KEY ix_tasks_application (application_id, status),
  KEY ix_tasks_namespace (namespace_id, queue_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='任务：Pulse持久化任务';

CREATE TABLE IF NOT EXISTS task_attempts (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '尝试ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  task_id BIGINT NOT NULL COMMENT '所属任务ID',
  attempt_number INT NOT NULL COMMENT '尝试序号，从1开始',
  generation BIGINT NOT NULL COMMENT '领取时任务的代次',
  worker_id VARCHAR(200) NOT NULL COMMENT '领取的Worker ID',
  permit_hash VARBINARY(32) NOT NULL COMMENT '执行许可令牌的SHA-256摘要（令牌本身从不保存）',
  status VARCHAR(16) NOT NULL COMMENT '状态：CLAIMED/RUNNING/SUCCEEDED/FAILED/NEEDS_REVIEW/CANCELLED/VOID/EXPIRED',
  claimed_at BIGINT NOT NULL COMMENT '领取时间（Unix微秒）',
  started_at BIGINT NULL COMMENT '声明开始产生副作用的时间（Unix微秒）',
  lease_until BIGINT NOT NULL COMMENT '租约到期时间（Unix微秒）',
  expires_at BIGINT NOT NULL COMMENT '许可绝对终止时间：截止时间与尝试超时取小（Unix微秒）',
  finished_at BIGINT NULL COMMENT '结清时间（Unix微秒）',
  error_code VARCHAR(64) NULL COMMENT '失败或作废的错误码',
  completion_digest CHAR(64) NULL COMMENT '完成请求的规范化SHA-256摘要（识别相同重报）',
  receipt TEXT NULL COMMENT '执行回执JSON文本（相同完成重报时原样返回）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_task_attempts_number (task_id, attempt_number)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='任务尝试：每次领取一行，携带执行许可';

CREATE TABLE IF NOT EXISTS task_events (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '事件ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  task_id BIGINT NOT NULL COMMENT '任务ID',
  revision BIGINT NOT NULL COMMENT '变更后的任务状态版本',
  type VARCHAR(32) NOT NULL COMMENT '事件类型，如 task.claimed、task.succeeded',
  status VARCHAR(16) NOT NULL COMMENT '变更后的任务状态',
  attempt_id BIGINT NULL COMMENT '相关尝试ID',
  at BIGINT NOT NULL COMMENT '发生时间（数据库时钟，Unix微秒）',
  details TEXT NULL COMMENT '附加信息JSON（错误码等，不含业务载荷）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_task_events_revision (task_id, revision)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='任务原始状态事件：每次状态版本一行';

CREATE TABLE IF NOT EXISTS task_resources (
  namespace_id BIGINT NOT NULL COMMENT '命名空间ID',
  resource_key VARCHAR(200) NOT NULL COMMENT '资源键（精确字节比较）',
  task_id BIGINT NOT NULL COMMENT '当前持有资源的任务ID（已领取或运行中）',
  acquired_at BIGINT NOT NULL COMMENT '取得时间（Unix微秒）',
  PRIMARY KEY (namespace_id, resource_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='任务资源占用：同一命名空间加资源键同时至多一个已领取或运行中的任务';

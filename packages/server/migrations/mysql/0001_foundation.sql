-- 0001 基础：命名空间、应用与额度、队列、凭据、审计、幂等回执。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock; ids are BIGINT.
-- Default collation utf8mb4_nopad_bin: names and keys compare as exact bytes ("a" ≠ "a " ≠ "A").

CREATE TABLE IF NOT EXISTS namespaces (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '命名空间ID',
  name VARCHAR(63) NOT NULL COMMENT '命名空间名称（精确字节比较）',
  disabled TINYINT NOT NULL DEFAULT 0 COMMENT '是否停用（1=停用）',
  created_at BIGINT NOT NULL COMMENT '创建时间（数据库时钟，Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_namespaces_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='命名空间：租户隔离边界';

CREATE TABLE IF NOT EXISTS applications (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '应用ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  name VARCHAR(63) NOT NULL COMMENT '应用名称',
  disabled TINYINT NOT NULL DEFAULT 0 COMMENT '是否停用（1=停用）',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '状态版本，每次修改加一',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_applications_name (namespace_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='应用：队列与额度的所有者';

CREATE TABLE IF NOT EXISTS application_quotas (
  application_id BIGINT NOT NULL COMMENT '应用ID（一应用一行）',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  max_active_tasks BIGINT NOT NULL COMMENT '应用下所有队列共享的最大活动任务数',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '额度版本，每次修改加一',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (application_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='应用额度：受理工作时加排他锁';

CREATE TABLE IF NOT EXISTS queues (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '队列ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  application_id BIGINT NOT NULL COMMENT '所属应用ID',
  name VARCHAR(63) NOT NULL COMMENT '队列名称',
  capacity BIGINT NOT NULL COMMENT '最大待处理任务数',
  paused TINYINT NOT NULL DEFAULT 0 COMMENT '是否暂停领取（1=暂停；受理不受影响）',
  revision BIGINT NOT NULL DEFAULT 1 COMMENT '状态版本，每次修改加一',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后修改时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_queues_name (namespace_id, name),
  KEY ix_queues_application (namespace_id, application_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='队列：任务按队列受理和领取';

CREATE TABLE IF NOT EXISTS credentials (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '凭据ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（凭据只能访问此命名空间）',
  name VARCHAR(191) NOT NULL COMMENT '凭据名称（便于识别，不唯一）',
  lookup VARCHAR(32) NOT NULL COMMENT '密钥公开查找前缀',
  secret_hash VARBINARY(32) NOT NULL COMMENT '完整密钥的SHA-256摘要（密钥本身从不保存）',
  scopes VARCHAR(512) NOT NULL COMMENT '权限范围，空格分隔',
  queue_names TEXT NULL COMMENT '限定可访问的队列名称，空格分隔；NULL表示全部队列',
  expires_at BIGINT NULL COMMENT '过期时间（Unix微秒）；NULL表示不过期',
  revoked_at BIGINT NULL COMMENT '吊销时间（Unix微秒）；NULL表示有效',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_credentials_lookup (lookup),
  KEY ix_credentials_namespace (namespace_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='凭据：API密钥，仅存摘要';

CREATE TABLE IF NOT EXISTS audit_log (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '审计记录ID',
  namespace_id BIGINT NULL COMMENT '命名空间ID；未认证请求为NULL',
  at BIGINT NOT NULL COMMENT '发生时间（数据库时钟，Unix微秒）',
  credential_id BIGINT NULL COMMENT '操作凭据ID；未认证为NULL',
  action VARCHAR(64) NOT NULL COMMENT '动作，如 credential.create、request.denied',
  outcome VARCHAR(16) NOT NULL COMMENT '结果：ok 或 denied',
  code VARCHAR(64) NULL COMMENT '拒绝时的错误码',
  object_type VARCHAR(32) NULL COMMENT '对象类型',
  object_id VARCHAR(191) NULL COMMENT '对象ID或名称',
  request_id VARCHAR(64) NULL COMMENT '请求ID',
  details TEXT NULL COMMENT '附加信息JSON（从不包含密钥或业务载荷）',
  PRIMARY KEY (id),
  KEY ix_audit_namespace (namespace_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='审计日志：变更与拒绝记录';

CREATE TABLE IF NOT EXISTS receipts (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '回执ID',
  namespace_id BIGINT NOT NULL COMMENT '命名空间ID',
  operation VARCHAR(64) NOT NULL COMMENT '操作名，如 queue.create',
  idempotency_key VARCHAR(200) NOT NULL COMMENT '调用方幂等键（精确字节比较）',
  request_digest CHAR(64) NOT NULL COMMENT '冻结请求的规范化SHA-256摘要',
  status_code INT NOT NULL COMMENT '原始响应HTTP状态码',
  response MEDIUMTEXT NOT NULL COMMENT '原始响应JSON文本',
  created_at BIGINT NOT NULL COMMENT '创建时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_receipts_key (namespace_id, operation, idempotency_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='幂等回执：重放返回原始响应';

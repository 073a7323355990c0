-- 0001 基础：命名空间、应用与额度、队列、凭据、审计、幂等回执。
-- SQLite keeps no comments in its catalog: the Chinese comment of each table and column is the
-- `-- ` comment on the same line, and a test reads them from this file.
-- Instants are INTEGER Unix microseconds of the database clock. TEXT compares as exact bytes
-- (BINARY collation), so "a", "a " and "A" are three keys.

CREATE TABLE namespaces ( -- 命名空间：租户隔离边界
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 命名空间ID
  name TEXT NOT NULL, -- 命名空间名称（精确字节比较）
  disabled INTEGER NOT NULL DEFAULT 0, -- 是否停用（1=停用）
  created_at INTEGER NOT NULL -- 创建时间（数据库时钟，Unix微秒）
);
CREATE UNIQUE INDEX uq_namespaces_name ON namespaces (name);

CREATE TABLE applications ( -- 应用：队列与额度的所有者
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 应用ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  name TEXT NOT NULL, -- 应用名称
  disabled INTEGER NOT NULL DEFAULT 0, -- 是否停用（1=停用）
  revision INTEGER NOT NULL DEFAULT 1, -- 状态版本，每次修改加一
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_applications_name ON applications (namespace_id, name);

CREATE TABLE application_quotas ( -- 应用额度：受理工作时加排他锁
  application_id INTEGER PRIMARY KEY, -- 应用ID（一应用一行）
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  max_active_tasks INTEGER NOT NULL, -- 应用下所有队列共享的最大活动任务数
  revision INTEGER NOT NULL DEFAULT 1, -- 额度版本，每次修改加一
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);

CREATE TABLE queues ( -- 队列：任务按队列受理和领取
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 队列ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  application_id INTEGER NOT NULL, -- 所属应用ID
  name TEXT NOT NULL, -- 队列名称
  capacity INTEGER NOT NULL, -- 最大待处理任务数
  paused INTEGER NOT NULL DEFAULT 0, -- 是否暂停领取（1=暂停；受理不受影响）
  revision INTEGER NOT NULL DEFAULT 1, -- 状态版本，每次修改加一
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_queues_name ON queues (namespace_id, name);
CREATE INDEX ix_queues_application ON queues (namespace_id, application_id);

CREATE TABLE credentials ( -- 凭据：API密钥，仅存摘要
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 凭据ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（凭据只能访问此命名空间）
  name TEXT NOT NULL, -- 凭据名称（便于识别，不唯一）
  lookup TEXT NOT NULL, -- 密钥公开查找前缀
  secret_hash BLOB NOT NULL, -- 完整密钥的SHA-256摘要（密钥本身从不保存）
  scopes TEXT NOT NULL, -- 权限范围，空格分隔
  queue_names TEXT NULL, -- 限定可访问的队列名称，空格分隔；NULL表示全部队列
  expires_at INTEGER NULL, -- 过期时间（Unix微秒）；NULL表示不过期
  revoked_at INTEGER NULL, -- 吊销时间（Unix微秒）；NULL表示有效
  created_at INTEGER NOT NULL -- 创建时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_credentials_lookup ON credentials (lookup);
CREATE INDEX ix_credentials_namespace ON credentials (namespace_id, id);

CREATE TABLE audit_log ( -- 审计日志：变更与拒绝记录
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 审计记录ID
  namespace_id INTEGER NULL, -- 命名空间ID；未认证请求为NULL
  at INTEGER NOT NULL, -- 发生时间（数据库时钟，Unix微秒）
  credential_id INTEGER NULL, -- 操作凭据ID；未认证为NULL
  action TEXT NOT NULL, -- 动作，如 credential.create、request.denied
  outcome TEXT NOT NULL, -- 结果：ok 或 denied
  code TEXT NULL, -- 拒绝时的错误码
  object_type TEXT NULL, -- 对象类型
  object_id TEXT NULL, -- 对象ID或名称
  request_id TEXT NULL, -- 请求ID
  details TEXT NULL -- 附加信息JSON（从不包含密钥或业务载荷）
);
CREATE INDEX ix_audit_namespace ON audit_log (namespace_id, id);

CREATE TABLE receipts ( -- 幂等回执：重放返回原始响应
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 回执ID
  namespace_id INTEGER NOT NULL, -- 命名空间ID
  operation TEXT NOT NULL, -- 操作名，如 queue.create
  idempotency_key TEXT NOT NULL, -- 调用方幂等键（精确字节比较）
  request_digest TEXT NOT NULL, -- 冻结请求的规范化SHA-256摘要
  status_code INTEGER NOT NULL, -- 原始响应HTTP状态码
  response TEXT NOT NULL, -- 原始响应JSON文本
  created_at INTEGER NOT NULL -- 创建时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_receipts_key ON receipts (namespace_id, operation, idempotency_key);

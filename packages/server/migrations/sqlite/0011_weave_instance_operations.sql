-- 0011 批量实例操作（issue 12 第5项）：对匹配实例列表筛选条件的每个实例执行取消、暂停、恢复或重试失败步骤；
-- 作为持久化操作分批处理，每个实例一个事务，进度可读，重启安全，每个实例恰好一次。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock.
-- Zero foreign keys: every relation is checked in code within one namespace.
-- Design: docs/design/bulk-operations.md.

CREATE TABLE weave_instance_operations ( -- 批量实例操作：按筛选条件遍历实例并逐个执行动作的持久化操作
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 批量操作ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  action TEXT NOT NULL, -- 动作：cancel（取消）/pause（暂停）/resume（恢复）/retry_failed（重试失败步骤）
  filter TEXT NOT NULL, -- 实例列表筛选条件JSON原文（流程、版本、状态、业务键、受理时间范围）
  reason TEXT NULL, -- 操作原因：写入每个实例的历史与审计
  status TEXT NOT NULL, -- 操作状态：RUNNING（处理中）/SUCCEEDED（遍历完成）/FAILED（创建者凭据失效或失去权限而停止）
  created_before INTEGER NOT NULL, -- 遍历上界：创建时固定为 min(筛选的 created_before, 创建时数据库时间)，之后受理的实例不会加入（Unix微秒）
  cursor_key TEXT NULL, -- 遍历游标：最后处理的实例的 <created_at>.<id>（最新的在前）；NULL表示尚未开始
  matched_count INTEGER NOT NULL DEFAULT 0, -- 已遍历到的匹配实例数（每个一条明细）
  done_count INTEGER NOT NULL DEFAULT 0, -- 已生效的实例数：动作改变了实例，或实例本已如此
  failed_count INTEGER NOT NULL DEFAULT 0, -- 被拒绝的实例数（权限、额度等错误，错误码见明细）
  skipped_count INTEGER NOT NULL DEFAULT 0, -- 动作不适用于其状态而跳过的实例数（如暂停已结束的实例）
  lease_owner TEXT NULL, -- 租约持有者（处理本操作的服务器节点）
  lease_until INTEGER NULL, -- 租约到期时间（Unix微秒）；到期后其他节点可接手
  generation INTEGER NOT NULL DEFAULT 0, -- 代次：每次换节点领取加一；每个实例事务核对，旧节点随之失效
  created_by INTEGER NOT NULL, -- 创建所用凭据ID：操作以其权限执行，每批重新核对（吊销或过期即停止）
  error_code TEXT NULL, -- FAILED 的原因错误码
  error_message TEXT NULL, -- FAILED 的原因说明
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL, -- 最后修改时间（Unix微秒）
  finished_at INTEGER NULL -- 结束时间（Unix微秒）；处理中为NULL
);
CREATE INDEX ix_weave_instance_operations_claim ON weave_instance_operations (status, lease_until);
CREATE INDEX ix_weave_instance_operations_list ON weave_instance_operations (namespace_id, id);

CREATE TABLE weave_instance_operation_items ( -- 批量操作明细：每个（操作，实例）一行，与该实例的控制同一事务写入，保证每个实例恰好一次
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 明细ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  operation_id INTEGER NOT NULL, -- 所属批量操作ID
  instance_id INTEGER NOT NULL, -- 处理的实例ID
  outcome TEXT NOT NULL, -- 结果：CHANGED（已改变）/UNCHANGED（本已如此）/SKIPPED（不适用于其状态）/FAILED（被拒绝）
  error_code TEXT NULL, -- SKIPPED/FAILED 的错误码
  error_message TEXT NULL, -- SKIPPED/FAILED 的说明
  created_at INTEGER NOT NULL -- 处理时间（Unix微秒），与实例的控制在同一事务
);
CREATE UNIQUE INDEX uq_weave_instance_operation_items ON weave_instance_operation_items (namespace_id, operation_id, instance_id);

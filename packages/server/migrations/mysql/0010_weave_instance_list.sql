-- 0010 实例列表的索引（GET /instances，issue 12 第4项）：每个筛选条件一个索引，均以 namespace_id 开头、以列表顺序 (created_at, id) 结尾，
-- 使每页都是一次索引范围读取且无需排序（最新的在前）。多个状态时每个状态各读一次再合并。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Design: docs/design/runtime.md §6 "List".

-- 无筛选或只按受理时间范围。
CREATE INDEX IF NOT EXISTS ix_weave_instances_list ON weave_instances (namespace_id, created_at, id);

-- 按流程名称（定义ID）。
CREATE INDEX IF NOT EXISTS ix_weave_instances_list_workflow ON weave_instances (namespace_id, definition_id, created_at, id);

-- 按流程名称和版本号。
CREATE INDEX IF NOT EXISTS ix_weave_instances_list_version ON weave_instances (namespace_id, definition_id, version, created_at, id);

-- 按状态；其前缀 (namespace_id, status) 也服务活动实例计数（A4.3），故取代 ix_weave_instances_active。
CREATE INDEX IF NOT EXISTS ix_weave_instances_list_status ON weave_instances (namespace_id, status, created_at, id);
DROP INDEX IF EXISTS ix_weave_instances_active ON weave_instances;

-- 按业务键（精确字节，含尾随空格：列的排序规则是 utf8mb4_nopad_bin）。
CREATE INDEX IF NOT EXISTS ix_weave_instances_list_key ON weave_instances (namespace_id, business_key, created_at, id);

-- 0005 定时触发记录的两个索引：按任务ID查来源（GET /tasks/{id}/source），按时间清理旧记录。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).

CREATE INDEX IF NOT EXISTS ix_schedule_firings_task ON schedule_firings (task_id);

-- 触发记录按时间清理（保留期外的旧记录分批删除）。
CREATE INDEX IF NOT EXISTS ix_schedule_firings_created ON schedule_firings (created_at);

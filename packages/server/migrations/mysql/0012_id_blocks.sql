-- 0012 ID区段：新任务与尝试的ID由各服务器进程按区段预留（自动提交的单条UPDATE），插入语句无需等待返回的ID，
-- 可随下一条需要应答的语句（多为COMMIT）同包发送。设计：docs/design/hot-path.md §14。
-- 升级到此版本须先停止所有旧版本节点（旧节点仍用自增ID插入，会与新节点预留的区段冲突）。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS, INSERT IGNORE).

CREATE TABLE IF NOT EXISTS id_blocks (
  name VARCHAR(64) NOT NULL COMMENT '表名：tasks / task_attempts',
  next_id BIGINT NOT NULL COMMENT '下一个未预留的ID；预留n个即加n（自动提交，先于任何使用）',
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='ID区段：tasks与task_attempts的新ID由服务器进程按区段预留';

INSERT IGNORE INTO id_blocks (name, next_id) SELECT 'tasks', COALESCE(MAX(id), 0) + 1 FROM tasks;
INSERT IGNORE INTO id_blocks (name, next_id) SELECT 'task_attempts', COALESCE(MAX(id), 0) + 1 FROM task_attempts;

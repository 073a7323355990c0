-- 0012 ID区段：MariaDB上新任务与尝试的ID由服务器进程按区段预留（docs/design/hot-path.md §14）。
-- SQLite 不使用（单一写者、无网络往返，插入的 RETURNING 没有额外代价）；表仍建立，两种数据库的结构保持一致。

CREATE TABLE id_blocks ( -- ID区段：tasks与task_attempts的新ID由服务器进程按区段预留（仅MariaDB使用）
  name TEXT NOT NULL PRIMARY KEY, -- 表名：tasks / task_attempts
  next_id INTEGER NOT NULL -- 下一个未预留的ID
);

INSERT INTO id_blocks (name, next_id) SELECT 'tasks', COALESCE(MAX(id), 0) + 1 FROM tasks;
INSERT INTO id_blocks (name, next_id) SELECT 'task_attempts', COALESCE(MAX(id), 0) + 1 FROM task_attempts;

-- 0007 流程定义与不可变版本：发布时保存原文与SHA-256摘要，相同原文再次发布返回已有版本。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock. Design: docs/design/runtime.md.

CREATE TABLE weave_definitions ( -- 流程定义：一个流程名及其版本序列
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 流程定义ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  name TEXT NOT NULL, -- 流程名，命名空间内唯一（精确字节比较）
  latest_version INTEGER NOT NULL DEFAULT 0, -- 最新版本号；发布在本行行锁下读取并加一
  created_at INTEGER NOT NULL, -- 首次发布时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后发布时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_definitions_name ON weave_definitions (namespace_id, name);

CREATE TABLE weave_definition_versions ( -- 流程定义版本：不可变的原文与摘要
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 版本ID（实例固定到它）
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  definition_id INTEGER NOT NULL, -- 所属流程定义ID
  version INTEGER NOT NULL, -- 版本号，每个流程从1起连续递增
  source TEXT NOT NULL, -- 发布的定义原文（紧凑JSON，保留键序与数字原文），从不修改
  digest TEXT NOT NULL, -- 原文的SHA-256摘要（十六进制）；受理时核对，流程内唯一
  schema_version INTEGER NOT NULL, -- 定义的结构版本（当前为1）
  step_count INTEGER NOT NULL, -- 静态节点数（所有嵌套层级，不含内部根步骤），不超过128
  queues TEXT NOT NULL, -- 引用的队列名（JSON数组文本，排序去重）；受理与查询按它检查队列范围
  has_tasks INTEGER NOT NULL, -- 是否含业务任务（TASK或POLL）；受理还需 tasks:submit
  created_by INTEGER NULL, -- 发布所用凭据ID（审计）
  created_at INTEGER NOT NULL -- 发布时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_definition_versions_version ON weave_definition_versions (namespace_id, definition_id, version);
CREATE UNIQUE INDEX uq_weave_definition_versions_digest ON weave_definition_versions (namespace_id, definition_id, digest);

-- 0007 流程定义与不可变版本：发布时保存原文与SHA-256摘要，相同原文再次发布返回已有版本。
-- MariaDB DDL is not transactional: every statement is re-runnable (IF NOT EXISTS).
-- Instants are BIGINT Unix microseconds of the database clock. Design: docs/design/runtime.md.

CREATE TABLE IF NOT EXISTS weave_definitions (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '流程定义ID',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID（无外键，代码内核对）',
  name VARCHAR(63) NOT NULL COMMENT '流程名，命名空间内唯一（精确字节比较）',
  latest_version INT NOT NULL DEFAULT 0 COMMENT '最新版本号；发布在本行行锁下读取并加一',
  created_at BIGINT NOT NULL COMMENT '首次发布时间（Unix微秒）',
  updated_at BIGINT NOT NULL COMMENT '最后发布时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_weave_definitions_name (namespace_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='流程定义：一个流程名及其版本序列';

CREATE TABLE IF NOT EXISTS weave_definition_versions (
  id BIGINT NOT NULL AUTO_INCREMENT COMMENT '版本ID（实例固定到它）',
  namespace_id BIGINT NOT NULL COMMENT '所属命名空间ID',
  definition_id BIGINT NOT NULL COMMENT '所属流程定义ID',
  version INT NOT NULL COMMENT '版本号，每个流程从1起连续递增',
  source MEDIUMTEXT NOT NULL COMMENT '发布的定义原文（紧凑JSON，保留键序与数字原文），从不修改',
  digest CHAR(64) NOT NULL COMMENT '原文的SHA-256摘要（十六进制）；受理时核对，流程内唯一',
  schema_version INT NOT NULL COMMENT '定义的结构版本（当前为1）',
  step_count INT NOT NULL COMMENT '静态节点数（所有嵌套层级，不含内部根步骤），不超过128',
  queues TEXT NOT NULL COMMENT '引用的队列名（JSON数组文本，排序去重）；受理与查询按它检查队列范围',
  has_tasks TINYINT NOT NULL COMMENT '是否含业务任务（TASK或POLL）；受理还需 tasks:submit',
  created_by BIGINT NULL COMMENT '发布所用凭据ID（审计）',
  created_at BIGINT NOT NULL COMMENT '发布时间（Unix微秒）',
  PRIMARY KEY (id),
  UNIQUE KEY uq_weave_definition_versions_version (namespace_id, definition_id, version),
  UNIQUE KEY uq_weave_definition_versions_digest (namespace_id, definition_id, digest)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='流程定义版本：不可变的原文与摘要';

-- 0008 流程运行时：实例、活动实例上界、门控、步骤、激活、等待、轮次、内部结果收件箱、待续记录、实例历史。
-- SQLite keeps no comments in its catalog: the Chinese comment is the `-- ` on the same line.
-- Instants are INTEGER Unix microseconds of the database clock; durations are INTEGER microseconds.
-- Zero foreign keys: every relation is checked in code within one namespace (A2.7, E1.4, E2.4).
-- Design: docs/design/runtime.md §1.

CREATE TABLE weave_instances ( -- 流程实例：固定到一个不可变版本的一次执行
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 流程实例ID；也是实例级互斥锁（改动实例的事务先锁本行）
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（无外键，代码内核对）
  definition_id INTEGER NOT NULL, -- 固定的流程定义ID
  version_id INTEGER NOT NULL, -- 固定的不可变版本ID（受理时确定，从不改变）
  version INTEGER NOT NULL, -- 固定的版本号（供视图显示，免连接查询）
  digest TEXT NOT NULL, -- 受理时版本原文的SHA-256摘要；每次读取与归属检查都与版本行核对
  application_id INTEGER NOT NULL, -- 所属应用ID：其额度、默认结果流、扫描时的停用检查
  result_stream_id INTEGER NULL, -- 受理时指定的结果流ID；NULL表示所属应用的默认结果流
  status TEXT NOT NULL, -- 实例状态：RUNNING/WAITING/CANCELLING/NEEDS_REVIEW 为活动，SUCCEEDED/FAILED/CANCELLED/TIMED_OUT 为终态
  revision INTEGER NOT NULL, -- 实例版本：每个改动实例的已提交事务加一；首个持久化轮次后为2
  history_seq INTEGER NOT NULL DEFAULT 0, -- 已写入的最后一条实例历史序号（在实例行锁下递增）
  paused INTEGER NOT NULL DEFAULT 0, -- 是否暂停（暂停控制，后续版本）；参与计算是否允许新工作
  control_version INTEGER NOT NULL DEFAULT 0, -- 控制版本：每次控制操作加一；参与计算是否允许新工作
  ending TEXT NULL, -- 收尾目标终态：在途工作结清后实例取此状态（TIMED_OUT，将来 CANCELLED）；NULL表示未收尾
  ending_at INTEGER NULL, -- 设置收尾目标的时间（数据库时钟，Unix微秒）
  business_key TEXT NULL, -- 业务键：精确保存（含尾随空格），不是幂等键
  input TEXT NOT NULL, -- 受理时校验过的实例输入JSON原文（保留数字原文）
  output TEXT NULL, -- 实例输出JSON原文（根步骤输出），仅 SUCCEEDED 时有
  error_code TEXT NULL, -- FAILED/TIMED_OUT 的原因错误码
  error_message TEXT NULL, -- FAILED/TIMED_OUT 的原因说明
  error_step_id TEXT NULL, -- 导致失败的叶子步骤ID；NULL表示不归因于某个步骤
  deadline_at INTEGER NOT NULL, -- 实例总截止时间 = 受理时数据库时间 + 流程超时；固定，从不延长（Unix微秒）
  created_by INTEGER NULL, -- 受理所用凭据ID（审计）
  created_at INTEGER NOT NULL, -- 受理时间（Unix微秒）
  updated_at INTEGER NOT NULL, -- 最后修改时间（Unix微秒）
  finished_at INTEGER NULL -- 进入终态的时间（Unix微秒）；活动实例为NULL
);
CREATE INDEX ix_weave_instances_active ON weave_instances (namespace_id, status);
CREATE INDEX ix_weave_instances_deadline ON weave_instances (status, deadline_at, namespace_id, id);

CREATE TABLE weave_instance_bounds ( -- 活动实例上界：受理时加排他锁，串行化命名空间的最后名额
  namespace_id INTEGER PRIMARY KEY, -- 命名空间ID（每个受理过实例的命名空间一行）
  active_bound INTEGER NOT NULL, -- 活动实例数的上界：上次精确计数加其后受理数，只增不减；达到上限时重新精确计数
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);

CREATE TABLE weave_gates ( -- 实例门控：结果归属检查读取它；只有 OPEN 时允许新工作
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 门控ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID（每实例一个门控）
  state TEXT NOT NULL, -- 门控状态：OPEN（可派发新工作）/HELD（暂停）/CLOSING（收尾或失败中，不派发新工作）/CLOSED（实例已终结）
  control_version INTEGER NOT NULL DEFAULT 0, -- 最后一次变更时实例控制版本的副本
  reason TEXT NULL, -- 非 OPEN 的原因：deadline/completed/failed
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_gates_instance ON weave_gates (namespace_id, instance_id);

CREATE TABLE weave_steps ( -- 实例步骤：每个静态步骤一行，另加内部根步骤 $root；即引擎快照
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 步骤行ID（激活与待续记录指向它）
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID
  step_id TEXT NOT NULL, -- 定义中的步骤ID；内部根步骤为 $root
  kind TEXT NOT NULL, -- 步骤类型：TASK/BRANCH/PARALLEL/SIGNAL/TIMER/POLL，内部根步骤为 ROOT
  position INTEGER NOT NULL, -- 文档顺序（步骤列表按它排序；$root 为0）
  status TEXT NOT NULL, -- 步骤状态（引擎 StepStatus）：PENDING/ACTIVE/WAITING/SUCCEEDED/FAILED/SKIPPED/NEEDS_REVIEW/CANCELLED
  revision INTEGER NOT NULL DEFAULT 1, -- 步骤版本：本行每次变更加一；$root 的版本即推进检查点版本
  output TEXT NULL, -- 步骤输出JSON原文，当且仅当 SUCCEEDED 时有
  case_index INTEGER NULL, -- BRANCH 激活时选中的分支序号（默认分支 = 分支数），一经保存不再改变
  completed_by TEXT NULL, -- POLL 成功方式：QUERY（查询结果）/FINAL_SIGNAL（最终信号），仅 SUCCEEDED 时有
  cancel_requested INTEGER NOT NULL DEFAULT 0, -- 是否已对在途叶子步骤应用取消决定
  current_activation_id INTEGER NULL, -- 当前激活ID：结果必须属于它才会被应用
  activation_count INTEGER NOT NULL DEFAULT 0, -- 最后一次激活的序号（人工恢复会产生更多激活）
  error_code TEXT NULL, -- FAILED/NEEDS_REVIEW 的原因错误码
  error_message TEXT NULL, -- FAILED/NEEDS_REVIEW 的原因说明
  started_at INTEGER NULL, -- 首次激活时间（Unix微秒）；未激活为NULL
  finished_at INTEGER NULL, -- 进入终态的时间（Unix微秒）
  updated_at INTEGER NOT NULL -- 最后修改时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_steps_step ON weave_steps (namespace_id, instance_id, step_id);

CREATE TABLE weave_activations ( -- 步骤激活：步骤的每次激活一行（含根与复合步骤），任务归属于它
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 激活ID；工作流任务的 tasks.owner_id（owner_kind = workflow_activation）
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID
  step_row_id INTEGER NOT NULL, -- 所属步骤行ID（weave_steps.id）
  step_id TEXT NOT NULL, -- 步骤ID（视图与历史免连接查询）
  number INTEGER NOT NULL, -- 该步骤的第几次激活（1、2……）；与步骤行一起唯一，重算的轮次不会重复激活
  kind TEXT NOT NULL, -- 步骤类型（同 weave_steps.kind）
  status TEXT NOT NULL, -- 激活状态：ACTIVE/WAITING/SUCCEEDED/FAILED/CANCELLED/NEEDS_REVIEW；SUPERSEDED 表示被人工恢复取代的旧激活
  task_id INTEGER NULL, -- 仅 TASK：对应的任务ID；POLL 为NULL（通过轮次关联任务）
  input TEXT NULL, -- TASK/POLL 解析后的输入JSON原文（保留数字原文）
  last_task_revision INTEGER NOT NULL DEFAULT 0, -- 已应用的最高来源任务版本（给核查后重试的任务结果排序）
  poll_interval_us INTEGER NULL, -- POLL 轮询间隔（微秒）
  poll_max_rounds INTEGER NULL, -- POLL 最多查询轮数
  poll_used_rounds INTEGER NULL, -- POLL 已开始的查询轮数（只按轮次计，不按尝试次数计；恢复后保留）
  poll_deadline_at INTEGER NULL, -- POLL 绝对截止时间 = min(激活时间 + 超时, 实例截止时间)（Unix微秒）
  poll_task_timeout_us INTEGER NULL, -- POLL 每轮查询任务的超时（微秒）
  current_round_id INTEGER NULL, -- POLL 当前轮次ID：只有该轮的结果可被应用
  created_at INTEGER NOT NULL, -- 激活时间（Unix微秒）
  finished_at INTEGER NULL -- 进入终态的时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_activations_number ON weave_activations (namespace_id, step_row_id, number);
CREATE INDEX ix_weave_activations_instance ON weave_activations (namespace_id, instance_id, status);

CREATE TABLE weave_waits ( -- 等待：TIMER、SIGNAL、POLL 最终信号或 POLL 截止，由数据库时钟驱动
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 等待ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID
  activation_id INTEGER NOT NULL, -- 所属激活ID
  step_row_id INTEGER NOT NULL, -- 所属步骤行ID
  purpose TEXT NOT NULL, -- 用途：TIMER（定时器）/SIGNAL（信号）/POLL_SIGNAL（POLL 最终信号，到期 = POLL 截止）/POLL_DEADLINE（无最终信号的 POLL 截止）
  signal_name TEXT NULL, -- 信号名；TIMER/POLL_DEADLINE 为NULL，SIGNAL/POLL_SIGNAL 为NULL时无效且永不匹配
  payload_version INTEGER NULL, -- 信号载荷版本；TIMER/POLL_DEADLINE 为NULL
  correlation_key BLOB NULL, -- 信号关联键的精确字节（新值不超过512字节，留有旧数据余量，从不截断）
  due_at INTEGER NOT NULL, -- 到期时间：TIMER 为激活时间 + 时长；SIGNAL 为 min(激活时间 + 超时, 实例截止)；POLL_* 为 POLL 截止（Unix微秒）
  state TEXT NOT NULL, -- 等待状态：WAITING/FIRED（定时器触发）/EXPIRED（截止）/MATCHED（信号匹配）/CANCELLED
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  closed_at INTEGER NULL -- 离开 WAITING 的时间（Unix微秒）
);
CREATE INDEX ix_weave_waits_due ON weave_waits (state, due_at, namespace_id, id);
CREATE INDEX ix_weave_waits_activation ON weave_waits (namespace_id, activation_id);

CREATE TABLE weave_poll_rounds ( -- 轮次：POLL 的每轮查询一行，轮数只在这里计
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 轮次ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID
  activation_id INTEGER NOT NULL, -- 所属 POLL 激活ID
  number INTEGER NOT NULL, -- 轮次序号（1 至最多轮数）；与激活一起唯一，同一轮不会出现两次
  state TEXT NOT NULL, -- 轮次状态：SCHEDULED（已排期，尚无任务）/RUNNING（已建任务）/DONE/CANCELLED
  due_at INTEGER NOT NULL, -- 创建本轮查询任务的时间（第1轮为激活时间）（Unix微秒）
  task_id INTEGER NULL, -- 本轮唯一的查询任务ID；命名空间内唯一，即任务与轮次的关联
  classification TEXT NULL, -- 查询结果分类：PENDING/SUCCEEDED/FAILED/NEEDS_REVIEW，或任务本身的失败状态
  created_at INTEGER NOT NULL, -- 创建时间（Unix微秒）
  finished_at INTEGER NULL -- 结束时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_poll_rounds_number ON weave_poll_rounds (namespace_id, activation_id, number);
CREATE UNIQUE INDEX uq_weave_poll_rounds_task ON weave_poll_rounds (namespace_id, task_id);
CREATE INDEX ix_weave_poll_rounds_due ON weave_poll_rounds (state, due_at, namespace_id, id);
CREATE INDEX ix_weave_poll_rounds_instance ON weave_poll_rounds (namespace_id, instance_id, state);

CREATE TABLE weave_inbox ( -- 内部结果收件箱：任务结果事务写入、消费者在实例锁下消费的持久事件
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 内部结果事件ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID（由本行固定）
  instance_id INTEGER NOT NULL, -- 目标流程实例ID（由本行固定）
  event_id TEXT NOT NULL, -- 事件标识 task.<任务ID>.<任务版本>；命名空间内唯一
  type TEXT NOT NULL, -- 事件类型：task.succeeded/task.failed/task.cancelled/task.needs_review
  source_task_id INTEGER NULL, -- 来源任务ID；缺失的行永不执行（隔离）
  source_activation_id INTEGER NULL, -- 来源激活ID（任务的 owner_id）；缺失的行永不执行
  source_revision INTEGER NULL, -- 来源任务版本（大于0）；与来源任务一起唯一，重报不会产生第二行
  source_round_id INTEGER NULL, -- 归属检查找到的 POLL 轮次ID
  source_step_revision INTEGER NULL, -- 生产方读到的步骤版本（仅供追踪）
  snapshot TEXT NULL, -- 冻结的结果快照JSON（schema_version = 1，不超过512 KiB，结果原文拼接、保留数字原文），从不按后来的任务状态重建
  state TEXT NOT NULL, -- 处理状态：PENDING（待消费）/PROCESSED（已消费）/QUARANTINED（已隔离，永不执行）
  outcome TEXT NULL, -- PROCESSED 时的结论：APPLIED（已应用）/STALE（旧激活或旧轮次，只记录不应用）
  available_at INTEGER NOT NULL, -- 扫描最早可领取时间（消费失败后退避）（Unix微秒）
  lease_owner TEXT NULL, -- 租约持有者（节点ID）；插入时为生产方节点
  lease_until INTEGER NULL, -- 租约到期时间（Unix微秒）
  generation INTEGER NOT NULL DEFAULT 1, -- 代次：每次移交租约加一；隔离时保留
  failures INTEGER NOT NULL DEFAULT 0, -- 消费失败次数
  error_code TEXT NULL, -- 隔离原因或最近一次消费失败的错误码
  created_at INTEGER NOT NULL, -- 写入时间（结果事务的数据库时间，Unix微秒）
  processed_at INTEGER NULL -- 消费或隔离的时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_inbox_event ON weave_inbox (namespace_id, event_id);
CREATE UNIQUE INDEX uq_weave_inbox_source ON weave_inbox (namespace_id, source_task_id, source_revision);
CREATE INDEX ix_weave_inbox_scan ON weave_inbox (state, available_at, namespace_id, id);
CREATE INDEX ix_weave_inbox_instance ON weave_inbox (namespace_id, instance_id, state, id);

CREATE TABLE weave_pending_advances ( -- 待续记录：一轮变更预算用尽时的有界推进检查点，持久保存而非内存唤醒
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 待续记录ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID；每实例至多一行
  root_step_row_id INTEGER NOT NULL, -- 根步骤 $root 的步骤行ID
  root_step_revision INTEGER NOT NULL, -- 变更预算用尽的那一轮之后 $root 的版本；与当前版本不同即已过时
  checkpoint TEXT NOT NULL, -- 检查点JSON（schema_version = 1：根步骤ID、根步骤版本、实例版本），不含快照
  state TEXT NOT NULL, -- 状态：PENDING（完成后删除本行；此列使扫描索引与收件箱一致）
  available_at INTEGER NOT NULL, -- 扫描最早可领取时间（Unix微秒）
  lease_owner TEXT NULL, -- 租约持有者（节点ID）；写入时为本节点
  lease_until INTEGER NULL, -- 租约到期时间（Unix微秒）
  generation INTEGER NOT NULL DEFAULT 1, -- 代次：每次移交租约加一
  created_at INTEGER NOT NULL -- 创建时间（Unix微秒）
);
CREATE UNIQUE INDEX uq_weave_pending_advances_instance ON weave_pending_advances (namespace_id, instance_id);
CREATE INDEX ix_weave_pending_scan ON weave_pending_advances (state, available_at, namespace_id, id);

CREATE TABLE weave_history ( -- 实例历史：在引起事件的事务内写入的实例事件
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- 历史事件ID
  namespace_id INTEGER NOT NULL, -- 所属命名空间ID
  instance_id INTEGER NOT NULL, -- 所属流程实例ID
  seq INTEGER NOT NULL, -- 实例内序号（1、2……，无空洞）；分页键
  instance_revision INTEGER NOT NULL, -- 引起本事件的事务产生的实例版本
  type TEXT NOT NULL, -- 事件类型：instance.admitted、step.activated、step.completed、task.result、instance.succeeded 等
  step_id TEXT NULL, -- 相关步骤ID
  activation_id INTEGER NULL, -- 相关激活ID
  task_id INTEGER NULL, -- 相关任务ID
  round_id INTEGER NULL, -- 相关轮次ID
  inbox_id INTEGER NULL, -- 相关内部结果事件ID
  at INTEGER NOT NULL, -- 事务的数据库时间（Unix微秒）
  details TEXT NULL -- 小型JSON：错误码、分支序号、原因；不含业务载荷，instance.* 事件除外（与结果流事件一样带实例输出或错误原文）
);
CREATE UNIQUE INDEX uq_weave_history_seq ON weave_history (namespace_id, instance_id, seq);

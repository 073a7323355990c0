-- 0006 受理上界：应用活动任务数的上界，受理时在额度行锁下维护，代替每次受理的计数扫描。

ALTER TABLE application_quotas ADD COLUMN active_bound INTEGER NOT NULL DEFAULT 9223372036854775807; -- 活动任务数的上界（上次精确计数加其后受理数，只增不减；达到上限时重新精确计数；默认最大值表示未知）

-- 0009 占位：编号留给并行分支（issue 12 信号）的迁移；合并时由该分支的 0009 取代本文件。
-- This branch's 0010 needs contiguous numbers to run; this file holds no statement.
SELECT 1;

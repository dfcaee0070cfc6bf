-- 0023 (issue 37, results lead somewhere): a scheduled job that finishes
-- well is announced too — a quiet notice that opens its result — so
-- successes are numbered in commit order as failures are (`failure_seq`),
-- and every process announces the new ones once.
ALTER TABLE cron_history ADD COLUMN done_seq INTEGER;
CREATE UNIQUE INDEX cron_history_done_seq ON cron_history (done_seq) WHERE done_seq IS NOT NULL;

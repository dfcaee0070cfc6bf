-- 0021 (issue 37): the Activity timeline reads every source newest first,
-- and says which door started a run.
--
-- `runs.client`: the door a run was started through (`ui`, `cli`,
-- `claude-code`, …); NULL for what Colmena starts itself (a job, a wake-up,
-- a delegation) and for runs from before this column.
ALTER TABLE runs ADD COLUMN client TEXT;

-- A person's top-level runs, newest first.
CREATE INDEX runs_top_by_user ON runs (user_id, started_at) WHERE parent_run_id IS NULL;
-- Generated rounds, newest first.
CREATE INDEX variant_rounds_by_time ON variant_rounds (generated_at);
-- Job fires and wake-ups, newest first, and the runs they link (a run a
-- job or a wake-up started is shown as that entry, not twice).
CREATE INDEX cron_history_by_time ON cron_history (started_at);
CREATE INDEX cron_history_by_run ON cron_history (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX role_wake_history_by_time ON role_wake_history (started_at);
CREATE INDEX role_wake_history_by_run ON role_wake_history (run_id) WHERE run_id IS NOT NULL;

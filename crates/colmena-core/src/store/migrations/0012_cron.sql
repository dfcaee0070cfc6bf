-- 0012: scheduled jobs (SPEC H25, issue 14). A job runs an agent or a swarm
-- with a prompt, or wakes a bus role, on a cron expression or every N
-- seconds, in an IANA time zone. `next_run_at` (UTC, fixed-width RFC 3339 so
-- text order is time order) is what schedulers claim by compare-and-set:
-- whoever moves it forward from the value it read runs that fire, so two
-- schedulers on one data dir never run a job twice. NULL while paused.
CREATE TABLE cron_jobs (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL UNIQUE,
    schedule_kind    TEXT NOT NULL CHECK (schedule_kind IN ('cron', 'interval')),
    expression       TEXT,
    interval_seconds INTEGER,
    time_zone        TEXT NOT NULL,
    target_kind      TEXT NOT NULL CHECK (target_kind IN ('agent', 'swarm', 'role')),
    target_id        TEXT NOT NULL,
    prompt           TEXT NOT NULL DEFAULT '',
    missed           TEXT NOT NULL CHECK (missed IN ('skip', 'run_once')),
    paused           INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    next_run_at      TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    CHECK ((schedule_kind = 'cron' AND expression IS NOT NULL AND interval_seconds IS NULL)
        OR (schedule_kind = 'interval' AND expression IS NULL AND interval_seconds > 0))
) STRICT;

CREATE INDEX cron_jobs_due ON cron_jobs (next_run_at) WHERE paused = 0;

-- What a person allowed the job's runs (an agent's or a swarm's, and every
-- run they delegate to) with nobody watching, where the agent's rule would
-- ask: the ceiling the permission gate reads fresh at each call, as
-- role_unattended is for a role's wake-ups. None by default; only a person
-- sets it (the window, the CLI), never the model-facing cron_* tools.
CREATE TABLE cron_job_unattended (
    job_id TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
    risk   TEXT NOT NULL CHECK (risk IN ('write', 'run', 'network', 'send')),
    PRIMARY KEY (job_id, risk)
) STRICT;

-- Every run of a job, and every fire it did not run (skipped, with why).
-- `run_id` is the agent or swarm run it produced; `owner` the process that
-- ran it (`host:pid:instance`), so a row left `running` by a process that
-- died is closed at the next start. `failure_seq` numbers the failures in
-- commit order: the announcer in every process turns new ones into notices.
CREATE TABLE cron_history (
    id            INTEGER PRIMARY KEY,
    job_id        TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
    trigger_kind  TEXT NOT NULL CHECK (trigger_kind IN ('schedule', 'manual', 'catch_up')),
    scheduled_for TEXT,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
    duration_ms   INTEGER,
    run_id        TEXT REFERENCES runs (id) ON DELETE SET NULL,
    run_kind      TEXT CHECK (run_kind IN ('agent', 'swarm')),
    error         TEXT,
    note          TEXT,
    owner         TEXT,
    failure_seq   INTEGER UNIQUE
) STRICT;

CREATE INDEX cron_history_by_job ON cron_history (job_id, id);
CREATE INDEX cron_history_running ON cron_history (status) WHERE status = 'running';

-- "Run now" asked of a scheduler in another process (or this one): the
-- scheduler that deletes the row first runs it.
CREATE TABLE cron_triggers (
    id           INTEGER PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
    requested_at TEXT NOT NULL
) STRICT;

-- 0015: persistent roles (issue 15, seed 003 "roles persistentes"): each
-- role keeps its standing instructions and its own skills, a history of
-- its wake-ups, and — for a role that lives outside Colmena — the program
-- that wakes it. A role's memories live under its own memory owner
-- (`@<author id>`) in `memories`, and its thread across wake-ups in
-- `threads` / `messages` like any conversation; neither needs a table.

-- What the role is told at every wake-up, on top of its agent's prompt.
ALTER TABLE authors ADD COLUMN instructions TEXT NOT NULL DEFAULT '';
-- An outside role's wake-up: a program and its arguments as a JSON array
-- of strings, run without a shell. A role has an agent or a command, never
-- both (checked in core).
ALTER TABLE authors ADD COLUMN wake_command TEXT;
ALTER TABLE authors ADD COLUMN wake_timeout_seconds INTEGER
    CHECK (wake_timeout_seconds BETWEEN 1 AND 86400);

-- Skills enabled for the role, on top of its agent's.
CREATE TABLE role_skills (
    author_id TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    skill_id  TEXT NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (author_id, skill_id)
) STRICT;

-- One row per wake-up that had mail to handle (B6): when, which messages it
-- was handed, what it sent, its tokens (agent) or its exit and output
-- (command), and why it failed.
CREATE TABLE role_wake_history (
    id            INTEGER PRIMARY KEY,
    author_id     TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('agent', 'command')),
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    run_id        TEXT REFERENCES runs (id) ON DELETE SET NULL,
    -- JSON arrays of bus message ids.
    message_ids   TEXT NOT NULL DEFAULT '[]',
    sent_ids      TEXT NOT NULL DEFAULT '[]',
    input_tokens  INTEGER,
    output_tokens INTEGER,
    exit_code     INTEGER,
    timed_out     INTEGER NOT NULL DEFAULT 0 CHECK (timed_out IN (0, 1)),
    -- A command's stdout and stderr, cut to a bounded size.
    output        TEXT,
    -- The agent's final answer: its summary of what it did.
    summary       TEXT,
    error         TEXT
) STRICT;

CREATE INDEX role_wake_history_by_author ON role_wake_history (author_id, id);

-- Short-lived bearer tokens handed to an outside role's wake command in its
-- environment: valid until the command's time limit (plus a grace), removed
-- when the wake-up ends. Only the hash is kept, as for author tokens.
CREATE TABLE author_wake_tokens (
    token_hash BLOB PRIMARY KEY,
    author_id  TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    expires_at TEXT NOT NULL
) STRICT;

-- A thread's older turns, summarised to keep the next request under the
-- model's window: the summary stands for every message up to and including
-- `through_message_id`.
CREATE TABLE thread_summaries (
    thread_id          TEXT PRIMARY KEY REFERENCES threads (id) ON DELETE CASCADE,
    through_message_id INTEGER NOT NULL,
    summary            TEXT NOT NULL,
    updated_at         TEXT NOT NULL
) STRICT;

-- The model's context window in tokens, as the person set it; none: the
-- known default for the model's name (`models::context`).
ALTER TABLE models ADD COLUMN context_window INTEGER
    CHECK (context_window BETWEEN 256 AND 10000000);

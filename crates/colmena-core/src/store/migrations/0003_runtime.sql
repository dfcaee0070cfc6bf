-- 0003: the runtime — users and their channel identities, conversations
-- (threads and messages), runs with their steps, checkpoints and leases,
-- and saved swarms.

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    is_owner   INTEGER NOT NULL DEFAULT 0 CHECK (is_owner IN (0, 1)),
    created_at TEXT NOT NULL
) STRICT;

-- Who a channel identity is (SPEC H44): a Telegram id, an email…
CREATE TABLE user_identities (
    channel         TEXT NOT NULL,
    channel_user_id TEXT NOT NULL,
    account_id      TEXT NOT NULL DEFAULT '',
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (channel, channel_user_id, account_id)
) STRICT;

-- Unknown identities wait here for approval when there is more than one user.
CREATE TABLE pairing_requests (
    id              TEXT PRIMARY KEY,
    channel         TEXT NOT NULL,
    channel_user_id TEXT NOT NULL,
    account_id      TEXT NOT NULL DEFAULT '',
    code            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    user_id         TEXT REFERENCES users (id) ON DELETE CASCADE,
    created_at      TEXT NOT NULL,
    decided_at      TEXT
) STRICT;

CREATE INDEX pairing_by_identity ON pairing_requests (channel, channel_user_id, account_id, status);

-- The thread catalog: one conversation per user, channel and peer (H39).
CREATE TABLE threads (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL,
    channel         TEXT NOT NULL,
    peer            TEXT NOT NULL,
    agent_id        TEXT,
    title           TEXT,
    title_is_manual INTEGER NOT NULL DEFAULT 0 CHECK (title_is_manual IN (0, 1)),
    message_count   INTEGER NOT NULL DEFAULT 0,
    archived        INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    last_message_at TEXT
) STRICT;

CREATE INDEX threads_by_user ON threads (user_id, archived, last_message_at);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content    TEXT NOT NULL,
    agent_id   TEXT,
    run_id     TEXT,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX messages_by_thread ON messages (thread_id, id);

-- Summaries and notes kept about a conversation (deleted with it, H43).
CREATE TABLE thread_notes (
    id         INTEGER PRIMARY KEY,
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('summary', 'note')),
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE swarms (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    strategy    TEXT NOT NULL CHECK (strategy IN ('sequential', 'parallel', 'hierarchical')),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    -- Where the builder draws each node: {"agent_id": {"x": 0, "y": 0}}.
    layout      TEXT NOT NULL DEFAULT '{}',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

-- No foreign key to agents: an agent deleted later leaves the member in
-- place, and running the swarm then fails with a clear error (validation
-- on save keeps new swarms correct, SPEC H7).
CREATE TABLE swarm_members (
    swarm_id    TEXT NOT NULL REFERENCES swarms (id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL,
    order_index INTEGER NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('member', 'orchestrator')),
    PRIMARY KEY (swarm_id, agent_id)
) STRICT;

-- One execution of an agent or a swarm (H42): its steps, the checkpoint it
-- can resume from, and the lease of the process running it.
CREATE TABLE runs (
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('agent', 'swarm')),
    target_id         TEXT NOT NULL,
    thread_id         TEXT REFERENCES threads (id) ON DELETE SET NULL,
    parent_run_id     TEXT REFERENCES runs (id) ON DELETE CASCADE,
    user_id           TEXT NOT NULL,
    input             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted')),
    output            TEXT,
    error             TEXT,
    checkpoint        TEXT,
    lease_owner       TEXT,
    lease_expires_at  TEXT,
    -- Set by another process to stop the run; its holder sees it when it
    -- renews the lease.
    cancel_requested  INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    started_at        TEXT NOT NULL,
    finished_at       TEXT
) STRICT;

CREATE INDEX runs_by_target ON runs (kind, target_id, started_at);
CREATE INDEX runs_by_thread ON runs (thread_id, started_at);
CREATE INDEX runs_by_status ON runs (status);
CREATE INDEX runs_by_parent ON runs (parent_run_id);

CREATE TABLE run_steps (
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    agent_id   TEXT,
    kind       TEXT NOT NULL,
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT;

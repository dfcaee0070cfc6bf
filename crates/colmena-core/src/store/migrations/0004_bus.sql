-- 0004: the bus (SPEC B1–B8) — authors with hashed bearer tokens, messages
-- between them, and the drop-folder notes already ingested.

CREATE TABLE authors (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    kind                  TEXT NOT NULL CHECK (kind IN ('user', 'role')),
    -- A person's author: their user. Removing the user removes the author.
    user_id               TEXT REFERENCES users (id) ON DELETE CASCADE,
    -- A role run by Colmena: the agent its wake-ups run. A role without one
    -- is a session outside Colmena that reads its own inbox.
    agent_id              TEXT REFERENCES agents (id) ON DELETE SET NULL,
    -- SHA-256 of the bearer token; the token itself is never stored.
    token_hash            BLOB NOT NULL UNIQUE,
    -- Roles with an agent: minutes between wake-ups (B6).
    wake_interval_minutes INTEGER CHECK (wake_interval_minutes BETWEEN 1 AND 10080),
    next_wake_at          TEXT,
    last_wake_at          TEXT,
    last_wake_error       TEXT,
    created_at            TEXT NOT NULL,
    CHECK ((kind = 'user') = (user_id IS NOT NULL)),
    CHECK (kind = 'role' OR agent_id IS NULL)
) STRICT;

CREATE UNIQUE INDEX authors_name_unique ON authors (name COLLATE NOCASE);
CREATE INDEX authors_next_wake ON authors (next_wake_at) WHERE agent_id IS NOT NULL;

CREATE TABLE bus_messages (
    -- Commit order: "in order" means this.
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    -- No foreign key: mail a removed author sent stays in its readers' inboxes.
    from_author TEXT NOT NULL,
    to_author   TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    body        TEXT NOT NULL,
    priority    TEXT NOT NULL CHECK (priority IN ('normal', 'urgent')),
    -- Fixed-width RFC 3339 UTC with microseconds: compares correctly as text.
    created_at  TEXT NOT NULL,
    read_at     TEXT
) STRICT;

-- "A recipient's unread messages, in order" (B2), and the whole inbox. Every
-- index ends in the rowid (seq), so "ORDER BY created_at, seq" reads them in
-- index order without sorting.
CREATE INDEX bus_messages_unread ON bus_messages (to_author, read_at, created_at);
CREATE INDEX bus_messages_inbox ON bus_messages (to_author, created_at);
CREATE INDEX bus_messages_sent ON bus_messages (from_author, created_at);

-- Drop-folder notes already turned into messages, by content digest, so a
-- note ingested just before a crash is not ingested twice (B8).
CREATE TABLE dropped_notes (
    digest      TEXT PRIMARY KEY,
    message_id  TEXT NOT NULL,
    ingested_at TEXT NOT NULL
) STRICT;

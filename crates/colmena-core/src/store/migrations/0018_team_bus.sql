-- 0018: this desktop on a team's bus (issue 17). Where the bus is and who
-- this person is on it (the token sealed by the vault, never in clear),
-- and the outbox: mail written here waits in it, in order, until the team
-- bus acknowledges it. Each entry's message_id is chosen when it is
-- written, so a delivery retried after a lost answer lands once.
CREATE TABLE team_bus (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    url           TEXT NOT NULL,
    author_id     TEXT NOT NULL,
    token_sealed  BLOB NOT NULL,
    token_mask    TEXT NOT NULL,
    ca_pem        TEXT,
    connected_at  TEXT NOT NULL,
    -- The link as last seen: when it last answered, and the last failure.
    last_ok_at    TEXT,
    last_error    TEXT,
    last_error_at TEXT
) STRICT;

CREATE TABLE team_outbox (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    to_author  TEXT NOT NULL,
    body       TEXT NOT NULL,
    priority   TEXT NOT NULL CHECK (priority IN ('normal', 'urgent')),
    reply_to   TEXT,
    state      TEXT NOT NULL CHECK (state IN ('waiting', 'sent', 'failed')),
    created_at TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    sent_id    TEXT,
    sent_at    TEXT,
    error      TEXT
) STRICT;

CREATE INDEX team_outbox_by_state ON team_outbox (state, seq);

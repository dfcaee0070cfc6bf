-- The bus on PostgreSQL (issue 17): authors, messages, message ids, wake
-- tokens and the bus's settings, shared by every `colmena serve` replica.
-- Applied in the bus's own schema (search_path), under an advisory lock.
-- Mirrors SQLite's 0004/0008/0009/0015/0016/0017: times are timestamptz
-- (microseconds, as SQLite's text times), a role's grants and skills are
-- arrays on its row (no workspace tables to point at here).

CREATE TABLE authors (
    id                    text PRIMARY KEY,
    name                  text NOT NULL,
    kind                  text NOT NULL CHECK (kind IN ('user', 'role')),
    user_id               text,
    agent_id              text,
    token_hash            bytea NOT NULL,
    wake_interval_minutes integer,
    next_wake_at          timestamptz,
    last_wake_at          timestamptz,
    last_wake_error       text,
    -- Set while a replica runs the role's wake-up (a lease: it expires if
    -- that replica dies), so no other replica wakes the role meanwhile.
    waking_until          timestamptz,
    instructions          text NOT NULL DEFAULT '',
    wake_command          text,
    wake_timeout_seconds  integer,
    unattended            text[] NOT NULL DEFAULT '{}',
    skills                text[] NOT NULL DEFAULT '{}',
    created_at            timestamptz NOT NULL
);
CREATE UNIQUE INDEX authors_name_key ON authors (lower(name));
CREATE UNIQUE INDEX authors_token ON authors (token_hash);
CREATE INDEX authors_wakeable ON authors (next_wake_at)
    WHERE (agent_id IS NOT NULL OR wake_command IS NOT NULL) AND wake_interval_minutes IS NOT NULL;

CREATE TABLE messages (
    seq         bigserial PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    from_author text NOT NULL,
    to_author   text NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    body        text NOT NULL,
    priority    text NOT NULL CHECK (priority IN ('normal', 'urgent')),
    created_at  timestamptz NOT NULL,
    read_at     timestamptz,
    reply_to    text,
    thread_root text,
    -- The body's words lowercased and accent-folded by Colmena (as its
    -- tantivy index folds them), so "DISENO" finds "Diseño".
    words       tsvector NOT NULL
);
CREATE INDEX messages_unread ON messages (to_author, created_at, seq) WHERE read_at IS NULL;
CREATE INDEX messages_inbox ON messages (to_author, created_at, seq);
CREATE INDEX messages_sent ON messages (from_author, created_at, seq);
CREATE INDEX messages_pair ON messages (from_author, to_author, created_at, seq);
CREATE INDEX messages_thread ON messages (thread_root) WHERE thread_root IS NOT NULL;
CREATE INDEX messages_urgent ON messages (seq) WHERE priority = 'urgent' AND read_at IS NULL;
CREATE INDEX messages_words ON messages USING gin (words);

-- Unread mail per inbox, kept by triggers: the cap check reads one row.
CREATE TABLE unread (
    author_id text PRIMARY KEY,
    n         integer NOT NULL
);
CREATE FUNCTION count_unread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.read_at IS NULL THEN
        UPDATE unread SET n = n - 1 WHERE author_id = OLD.to_author;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.read_at IS NULL THEN
        INSERT INTO unread (author_id, n) VALUES (NEW.to_author, 1)
        ON CONFLICT (author_id) DO UPDATE SET n = unread.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_unread_count AFTER INSERT OR DELETE OR UPDATE OF read_at ON messages
    FOR EACH ROW EXECUTE FUNCTION count_unread();

-- A sender's own message ids (at most once across retries and replicas).
CREATE TABLE client_ids (
    from_author    text NOT NULL,
    client_id      text NOT NULL,
    message_id     text NOT NULL,
    request_sha256 bytea NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (from_author, client_id)
);

-- A wake command's short-lived token.
CREATE TABLE wake_tokens (
    token_hash bytea PRIMARY KEY,
    author_id  text NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);

-- The bus's own settings (the inbox cap, the minimum interval between wake-ups).
CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

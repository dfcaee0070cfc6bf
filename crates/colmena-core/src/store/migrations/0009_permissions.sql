-- 0009: the permission gate (issue "Safe by default"). Every tool has a
-- risk class; each agent has a rule per class (allow / ask / deny); a role
-- names the classes its unattended wake-ups may use where the agent's rule
-- says "ask"; and every "ask" is a row a person decides, kept so that a run
-- waiting for a decision survives a restart.

-- No row: the defaults (read allowed, everything else asks, no local network).
CREATE TABLE agent_permissions (
    agent_id      TEXT PRIMARY KEY REFERENCES agents (id) ON UPDATE CASCADE ON DELETE CASCADE,
    read          TEXT NOT NULL CHECK (read IN ('allow', 'ask', 'deny')),
    write         TEXT NOT NULL CHECK (write IN ('allow', 'ask', 'deny')),
    run           TEXT NOT NULL CHECK (run IN ('allow', 'ask', 'deny')),
    network       TEXT NOT NULL CHECK (network IN ('allow', 'ask', 'deny')),
    send          TEXT NOT NULL CHECK (send IN ('allow', 'ask', 'deny')),
    -- Network tools may reach loopback and private addresses.
    local_network INTEGER NOT NULL DEFAULT 0 CHECK (local_network IN (0, 1))
) STRICT;

CREATE TABLE role_unattended (
    author_id TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    risk      TEXT NOT NULL CHECK (risk IN ('read', 'write', 'run', 'network', 'send')),
    PRIMARY KEY (author_id, risk)
) STRICT;

-- A role exists to answer its mail: its wake-ups may send on the bus.
INSERT INTO role_unattended (author_id, risk) SELECT id, 'send' FROM authors WHERE kind = 'role';

CREATE TABLE tool_approvals (
    id         TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    agent_id   TEXT NOT NULL,
    -- The model turn that made the call: providers (and local servers) reuse
    -- call ids across turns, so the id alone does not name one call.
    step       INTEGER NOT NULL,
    call_id    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    -- The arguments as the model wrote them (JSON text).
    arguments  TEXT NOT NULL,
    risk       TEXT NOT NULL CHECK (risk IN ('read', 'write', 'run', 'network', 'send')),
    status     TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'cancelled')),
    -- An allowed call: for this call only, or for this tool for the rest of the run.
    scope      TEXT CHECK (scope IN ('once', 'run')),
    decided_by TEXT,
    created_at TEXT NOT NULL,
    decided_at TEXT,
    UNIQUE (run_id, agent_id, step, call_id)
) STRICT;

CREATE INDEX tool_approvals_by_status ON tool_approvals (status, created_at);
CREATE INDEX tool_approvals_by_run ON tool_approvals (run_id, agent_id, tool, status);

-- How many unread messages each inbox holds, kept by triggers so that the
-- cap on unread mail (inbox::messages) is one row read per send, not a
-- count over the inbox, and holds whichever code path reads, marks or
-- deletes mail.
CREATE TABLE bus_unread (
    author_id TEXT PRIMARY KEY REFERENCES authors (id) ON DELETE CASCADE,
    n         INTEGER NOT NULL DEFAULT 0 CHECK (n >= 0)
) STRICT;

INSERT INTO bus_unread (author_id, n)
    SELECT to_author, count(*) FROM bus_messages WHERE read_at IS NULL GROUP BY to_author;

CREATE TRIGGER bus_unread_on_insert AFTER INSERT ON bus_messages
WHEN NEW.read_at IS NULL
BEGIN
    INSERT INTO bus_unread (author_id, n) VALUES (NEW.to_author, 1)
        ON CONFLICT (author_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER bus_unread_on_read AFTER UPDATE OF read_at ON bus_messages
WHEN OLD.read_at IS NULL AND NEW.read_at IS NOT NULL
BEGIN
    UPDATE bus_unread SET n = n - 1 WHERE author_id = NEW.to_author AND n > 0;
END;

CREATE TRIGGER bus_unread_on_unread AFTER UPDATE OF read_at ON bus_messages
WHEN OLD.read_at IS NOT NULL AND NEW.read_at IS NULL
BEGIN
    INSERT INTO bus_unread (author_id, n) VALUES (NEW.to_author, 1)
        ON CONFLICT (author_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER bus_unread_on_delete AFTER DELETE ON bus_messages
WHEN OLD.read_at IS NULL
BEGIN
    UPDATE bus_unread SET n = n - 1 WHERE author_id = OLD.to_author AND n > 0;
END;

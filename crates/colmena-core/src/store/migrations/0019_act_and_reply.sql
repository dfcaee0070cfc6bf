-- 0019 (issue "Safe by default, round two"): what changes other systems has
-- a class of its own, and a role's default grant is only answering its mail.
--
-- `act`: an HTTP endpoint declared with POST, PUT, PATCH or DELETE (and a
-- remote MCP tool not marked read-only) changes something on another
-- system with the person's credentials. It used to count as `send`, so the
-- grant a role got to answer its mail also let one urgent message from any
-- token holder file tickets and delete records through it, unattended.
--
-- `reply` (a grant only): `send_message` to the authors whose mail the
-- wake-up was handed, and to nobody else — a role can no longer be made to
-- relay an outsider's text to colleagues as its own.

-- An agent's rule for acting on other systems: "ask", or "deny" where it
-- already refused to send.
ALTER TABLE agent_permissions
    ADD COLUMN act TEXT NOT NULL DEFAULT 'ask' CHECK (act IN ('allow', 'ask', 'deny'));
UPDATE agent_permissions SET act = 'deny' WHERE send = 'deny';

CREATE TABLE role_unattended_new (
    author_id TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    risk      TEXT NOT NULL CHECK (risk IN ('read', 'write', 'run', 'network', 'send', 'act', 'reply')),
    PRIMARY KEY (author_id, risk)
) STRICT;
INSERT INTO role_unattended_new (author_id, risk) SELECT author_id, risk FROM role_unattended;
-- The old default grant ("send" and nothing else) becomes the new default.
-- A role a person gave more than that keeps what it was given.
UPDATE role_unattended_new SET risk = 'reply'
    WHERE risk = 'send'
      AND author_id NOT IN (SELECT author_id FROM role_unattended WHERE risk <> 'send');
DROP TABLE role_unattended;
ALTER TABLE role_unattended_new RENAME TO role_unattended;

CREATE TABLE cron_job_unattended_new (
    job_id TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
    risk   TEXT NOT NULL CHECK (risk IN ('write', 'run', 'network', 'send', 'act')),
    PRIMARY KEY (job_id, risk)
) STRICT;
INSERT INTO cron_job_unattended_new (job_id, risk) SELECT job_id, risk FROM cron_job_unattended;
DROP TABLE cron_job_unattended;
ALTER TABLE cron_job_unattended_new RENAME TO cron_job_unattended;

CREATE TABLE tool_approvals_new (
    id         TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    agent_id   TEXT NOT NULL,
    step       INTEGER NOT NULL,
    call_id    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    risk       TEXT NOT NULL CHECK (risk IN ('read', 'write', 'run', 'network', 'send', 'act')),
    status     TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'cancelled')),
    scope      TEXT CHECK (scope IN ('once', 'run')),
    decided_by TEXT,
    created_at TEXT NOT NULL,
    decided_at TEXT,
    UNIQUE (run_id, agent_id, step, call_id)
) STRICT;
INSERT INTO tool_approvals_new SELECT id, run_id, agent_id, step, call_id, tool, arguments, risk,
    status, scope, decided_by, created_at, decided_at FROM tool_approvals;
DROP TABLE tool_approvals;
ALTER TABLE tool_approvals_new RENAME TO tool_approvals;
CREATE INDEX tool_approvals_by_status ON tool_approvals (status, created_at);
CREATE INDEX tool_approvals_by_run ON tool_approvals (run_id, agent_id, tool, status);

-- Who wrote the mail a wake-up run was handed (JSON array of author ids):
-- the authors a `reply` grant lets it answer, kept with the run so that a
-- resumed wake-up answers the same people.
ALTER TABLE role_wakes ADD COLUMN senders TEXT NOT NULL DEFAULT '[]';

-- The agents an agent may hand work to with `delegate_task` outside a
-- swarm (in a swarm: its members). None by default: a page or a message an
-- agent read must not be able to pick any agent of the workspace, with its
-- own tools and rules, to carry out what it says.
CREATE TABLE agent_delegates (
    agent_id    TEXT NOT NULL REFERENCES agents (id) ON UPDATE CASCADE ON DELETE CASCADE,
    delegate_id TEXT NOT NULL REFERENCES agents (id) ON UPDATE CASCADE ON DELETE CASCADE,
    PRIMARY KEY (agent_id, delegate_id),
    CHECK (agent_id <> delegate_id)
) STRICT;

-- Whether a remote MCP server marks the tool read-only (`readOnlyHint`, and
-- not `destructiveHint`): such a tool of an HTTP server reaches the network;
-- any other tool of an HTTP server changes other systems (`act`). A stdio
-- server's tools run a program on this computer (`run`) whatever it says.
ALTER TABLE tools ADD COLUMN mcp_read_only INTEGER NOT NULL DEFAULT 0 CHECK (mcp_read_only IN (0, 1));

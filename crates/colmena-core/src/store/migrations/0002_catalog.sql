-- 0002: the hive catalog — tools, skills, MCP servers, what each agent is
-- given, the code of ethics, per-user memory, and the search generation.

CREATE TABLE tools (
    id                   TEXT PRIMARY KEY,   -- the name a model calls (web_fetch)
    category             TEXT NOT NULL,
    description          TEXT NOT NULL,      -- the code's description (re-seeded)
    parameters           TEXT NOT NULL,      -- JSON schema of the arguments (re-seeded)
    source               TEXT NOT NULL CHECK (source IN ('builtin', 'endpoint', 'mcp')),
    -- What the user changed: kept across re-seeds; NULL means "as in code".
    display_name         TEXT,
    description_override TEXT,
    active               INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
) STRICT;

CREATE TABLE skills (
    id            TEXT PRIMARY KEY,          -- the Agent Skills `name`
    description   TEXT NOT NULL,
    body          TEXT NOT NULL,             -- markdown instructions
    license       TEXT,
    compatibility TEXT,
    metadata      TEXT NOT NULL DEFAULT '{}', -- JSON object of strings
    allowed_tools TEXT,                      -- space-separated, as written
    extra         TEXT NOT NULL DEFAULT '{}', -- unknown front-matter fields, kept as JSON
    origin        TEXT NOT NULL CHECK (origin IN ('bundled', 'disk', 'ui', 'agent')),
    source_path   TEXT,                      -- the folder it was imported from
    active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

CREATE TABLE mcp_servers (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    transport  TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
    config     TEXT NOT NULL DEFAULT '{}',
    enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- The catalog persona an agent was seeded from (NULL for the user's own).
ALTER TABLE agents ADD COLUMN persona TEXT;

-- Tool patterns as the user wrote them (`web_*`); expanded against the tool
-- catalog when read, validated when written.
CREATE TABLE agent_tool_patterns (
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    pattern  TEXT NOT NULL,
    PRIMARY KEY (agent_id, pattern)
) STRICT;

CREATE TABLE agent_skills (
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    skill_id TEXT NOT NULL REFERENCES skills (id) ON DELETE RESTRICT,
    PRIMARY KEY (agent_id, skill_id)
) STRICT;

CREATE INDEX agent_skills_by_skill ON agent_skills (skill_id);

CREATE TABLE agent_mcp_servers (
    agent_id  TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
    PRIMARY KEY (agent_id, server_id)
) STRICT;

CREATE TABLE ethics (
    id         TEXT PRIMARY KEY,
    title      TEXT NOT NULL,
    rule       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    active     INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- Per-user long-term memory (SPEC H26): the id is `{user_id}:{title}`.
CREATE TABLE memories (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    title      TEXT NOT NULL,
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (user_id, title)
) STRICT;

CREATE INDEX memories_by_user ON memories (user_id, updated_at);

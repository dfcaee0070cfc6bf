-- 0013: HTTP endpoints as tools (SPEC H27-H29). A person declares an
-- endpoint as data; it becomes the tool `endpoint_<id>` (a row of `tools`,
-- source 'endpoint', that points back at it). Templates are stored as
-- written and rendered, escaped for where each value goes, at every call.
-- Secret headers are listed by name in the row; their values are sealed by
-- the vault, one row each, in `endpoint_secrets` (never in clear, never
-- masked: no read path returns any part of them).

CREATE TABLE endpoints (
    id              TEXT PRIMARY KEY,   -- the slug: the tool is `endpoint_<id>`
    name            TEXT NOT NULL,
    description     TEXT NOT NULL,      -- what the model reads
    method          TEXT NOT NULL CHECK (method IN ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
    url             TEXT NOT NULL,      -- `{{param}}` only in the path
    query           TEXT NOT NULL DEFAULT '[]',  -- JSON [{name, value}] templates
    body            TEXT,                        -- JSON template, NULL: no body
    headers         TEXT NOT NULL DEFAULT '[]',  -- JSON [{name, value}] plain templates
    secret_headers  TEXT NOT NULL DEFAULT '[]',  -- JSON [name]: values in endpoint_secrets
    param_schema    TEXT NOT NULL,               -- JSON schema of the parameters
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    timeout_seconds INTEGER NOT NULL DEFAULT 30 CHECK (timeout_seconds BETWEEN 1 AND 120),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE UNIQUE INDEX endpoints_by_name ON endpoints (name COLLATE NOCASE);

CREATE TABLE endpoint_secrets (
    endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,   -- the header name, as written
    cipher      BLOB NOT NULL,
    PRIMARY KEY (endpoint_id, name)
) STRICT;

ALTER TABLE tools ADD COLUMN endpoint_id TEXT REFERENCES endpoints (id) ON DELETE CASCADE;
CREATE INDEX tools_by_endpoint ON tools (endpoint_id);

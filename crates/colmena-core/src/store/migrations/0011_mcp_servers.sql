-- 0011: MCP servers as a client (SPEC H23). The table of 0002 gets what a
-- running client needs: the last failure with its exit code and the end of
-- the program's standard error (so a CLI in another process can say why a
-- server failed), the preset it came from, and its secret
-- environment values and headers, each sealed by the vault like provider
-- keys (the plain config JSON never holds one). The tools a server lists are
-- rows of `tools` (source 'mcp') that point back at their server and keep
-- the name the server uses.

ALTER TABLE mcp_servers ADD COLUMN preset TEXT;
ALTER TABLE mcp_servers ADD COLUMN last_error TEXT;
ALTER TABLE mcp_servers ADD COLUMN last_error_at TEXT;
ALTER TABLE mcp_servers ADD COLUMN last_stderr TEXT;
ALTER TABLE mcp_servers ADD COLUMN last_exit_code INTEGER;

CREATE TABLE mcp_server_secrets (
    server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('env', 'header')),
    name      TEXT NOT NULL,
    cipher    BLOB NOT NULL,
    mask      TEXT NOT NULL,
    PRIMARY KEY (server_id, kind, name)
) STRICT;

ALTER TABLE tools ADD COLUMN mcp_server_id TEXT REFERENCES mcp_servers (id) ON DELETE CASCADE;
ALTER TABLE tools ADD COLUMN mcp_tool_name TEXT;
CREATE INDEX tools_by_mcp_server ON tools (mcp_server_id);

-- 0020 (issue 35): a provider of kind `local`, whose models are GGUF files
-- run by Colmena's own engine.
--
-- SQLite cannot change a CHECK in place: the table is rebuilt the way
-- SQLite documents it (migrations run with foreign keys off and are
-- checked with `PRAGMA foreign_key_check` after each script), so dropping
-- the old table takes no model with it and `models` names the new one.
CREATE TABLE providers_new (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('openai_compatible', 'anthropic', 'ollama', 'local')),
    base_url       TEXT NOT NULL,
    -- AES-256-GCM envelope (see secrets::vault); never the clear key.
    api_key_cipher BLOB,
    -- The masked form shown outward (`sk-…a1b2`), computed when the key is set.
    api_key_mask   TEXT,
    enabled        INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    CHECK ((api_key_cipher IS NULL) = (api_key_mask IS NULL))
) STRICT;
INSERT INTO providers_new SELECT * FROM providers;
DROP TABLE providers;
ALTER TABLE providers_new RENAME TO providers;
CREATE UNIQUE INDEX providers_name_unique ON providers (name COLLATE NOCASE);

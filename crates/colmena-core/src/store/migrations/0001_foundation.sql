-- 0001: the foundation — workspace metadata, providers, models, and the
-- minimal agents table that model deletion and renaming must respect.
-- Every table is STRICT; booleans are INTEGER 0/1; timestamps are RFC 3339
-- text in UTC, which sorts correctly as text.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE providers (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('openai_compatible', 'anthropic', 'ollama')),
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

CREATE UNIQUE INDEX providers_name_unique ON providers (name COLLATE NOCASE);

CREATE TABLE models (
    id                   TEXT PRIMARY KEY,
    provider_id          TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    label                TEXT,
    enabled              INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    -- Set when the provider was switched off while this model was on, so that
    -- switching the provider back on restores the user's own choice.
    disabled_by_provider INTEGER NOT NULL DEFAULT 0 CHECK (disabled_by_provider IN (0, 1)),
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    UNIQUE (provider_id, name)
) STRICT;

CREATE TABLE agents (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    -- RESTRICT: a model in use cannot disappear under an agent (SPEC H20).
    model_id      TEXT REFERENCES models (id) ON UPDATE RESTRICT ON DELETE RESTRICT,
    enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

CREATE INDEX agents_by_model ON agents (model_id);

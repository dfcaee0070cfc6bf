-- 0005: the canvas (SPEC C1–C10, seed 001) — canvases per user, immutable
-- item snapshots, variants with their append-only rounds, user presets,
-- export events, the activity log, and registered sources with the items
-- fetched from them.

CREATE TABLE canvases (
    id             TEXT PRIMARY KEY,
    -- The workspace is the organisation; a canvas is one user's (C1).
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name           TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL
) STRICT;

CREATE INDEX canvases_by_activity ON canvases (user_id, last_active_at DESC);

-- Registered upstream sources (C10) and what their refreshes fetched.
CREATE TABLE sources (
    id                TEXT PRIMARY KEY,
    user_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('rss', 'webpage', 'custom')),
    name              TEXT NOT NULL,
    url               TEXT,
    status            TEXT NOT NULL DEFAULT 'idle'
                      CHECK (status IN ('idle', 'refreshing', 'ok', 'error')),
    error             TEXT,
    last_refreshed_at TEXT,
    created_at        TEXT NOT NULL,
    CHECK ((kind = 'custom') = (url IS NULL))
) STRICT;

CREATE UNIQUE INDEX sources_name_unique ON sources (user_id, name COLLATE NOCASE);

CREATE TABLE source_items (
    id           TEXT PRIMARY KEY,
    source_id    TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    -- The upstream's own id (a feed entry's guid, a page's URL).
    external_id  TEXT NOT NULL,
    title        TEXT NOT NULL,
    snippet      TEXT NOT NULL,
    url          TEXT,
    published_at TEXT,
    metrics      TEXT NOT NULL DEFAULT '{}',
    raw          TEXT NOT NULL DEFAULT '{}',
    fetched_at   TEXT NOT NULL,
    UNIQUE (source_id, external_id)
) STRICT;

-- Snapshots taken at selection (C2): upstream changes never reach them.
CREATE TABLE canvas_items (
    id          TEXT PRIMARY KEY,
    canvas_id   TEXT NOT NULL REFERENCES canvases (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    source_kind TEXT NOT NULL CHECK (source_kind IN ('x', 'webpage', 'rss', 'custom')),
    external_id TEXT,
    title       TEXT NOT NULL,
    snippet     TEXT NOT NULL,
    captured_at TEXT NOT NULL,
    metrics     TEXT NOT NULL DEFAULT '{}',
    raw         TEXT NOT NULL DEFAULT '{}',
    created_at  TEXT NOT NULL
) STRICT;

CREATE INDEX canvas_items_by_canvas ON canvas_items (canvas_id, position);

CREATE TRIGGER canvas_items_are_snapshots BEFORE UPDATE ON canvas_items
BEGIN
    SELECT RAISE(ABORT, 'canvas items are immutable snapshots: remove and add again');
END;

-- A user's saved presets (C7); built-in presets are code.
CREATE TABLE user_presets (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    -- The name lower-cased (Unicode, not only ASCII): what "unique" means.
    name_key    TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    prompt      TEXT NOT NULL,
    style       TEXT NOT NULL DEFAULT '',
    type_tag    TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

CREATE UNIQUE INDEX user_presets_name_unique ON user_presets (user_id, name_key);

CREATE TABLE canvas_variants (
    id             TEXT PRIMARY KEY,
    canvas_id      TEXT NOT NULL REFERENCES canvases (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    preset_id      TEXT NOT NULL,
    user_preset_id TEXT REFERENCES user_presets (id) ON DELETE SET NULL,
    prompt         TEXT NOT NULL,
    style          TEXT NOT NULL DEFAULT '',
    type_tag       TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'idle'
                   CHECK (status IN ('idle', 'queued', 'streaming', 'done', 'error')),
    error_message  TEXT,
    -- 0-based index of the round shown; -1 while there is none (C3).
    active_round   INTEGER NOT NULL DEFAULT -1 CHECK (active_round >= -1),
    -- Its own model (else the workspace default), and optionally its own key
    -- (AES-256-GCM envelope, like providers'; never the clear key).
    model_id       TEXT REFERENCES models (id) ON UPDATE CASCADE ON DELETE SET NULL,
    api_key_cipher BLOB,
    api_key_mask   TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    CHECK ((api_key_cipher IS NULL) = (api_key_mask IS NULL))
) STRICT;

CREATE INDEX canvas_variants_by_canvas ON canvas_variants (canvas_id, position);

-- Append-only history per variant (C4).
CREATE TABLE variant_rounds (
    id                TEXT PRIMARY KEY,
    variant_id        TEXT NOT NULL REFERENCES canvas_variants (id) ON DELETE CASCADE,
    round_index       INTEGER NOT NULL,
    output            TEXT NOT NULL,
    prompt_snapshot   TEXT NOT NULL,
    style_snapshot    TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    client            TEXT NOT NULL,
    generated_at      TEXT NOT NULL,
    UNIQUE (variant_id, round_index)
) STRICT;

CREATE TRIGGER variant_rounds_are_append_only BEFORE UPDATE ON variant_rounds
BEGIN
    SELECT RAISE(ABORT, 'rounds are append-only');
END;

-- Export events (C6): they feed "exports in the last 7 days".
CREATE TABLE canvas_exports (
    id         TEXT PRIMARY KEY,
    canvas_id  TEXT NOT NULL REFERENCES canvases (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    variant_id TEXT,
    round_id   TEXT,
    format     TEXT NOT NULL CHECK (format IN ('markdown')),
    target     TEXT NOT NULL CHECK (target IN ('file', 'clipboard', 'caller')),
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX canvas_exports_by_user ON canvas_exports (user_id, created_at);

-- Append-only activity (C8): the "now" feed.
CREATE TABLE canvas_activity (
    seq        INTEGER PRIMARY KEY,
    user_id    TEXT NOT NULL,
    -- Kept when the canvas goes: the log says what happened to it.
    canvas_id  TEXT REFERENCES canvases (id) ON DELETE SET NULL,
    client     TEXT NOT NULL,
    tool       TEXT NOT NULL,
    detail     TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX canvas_activity_by_user ON canvas_activity (user_id, seq);

-- 0006: stored images (SPEC C11, H36–H38) — artifacts kept as files in the
-- data dir's artifacts/ folder, with what is known of them; a derived one
-- (normalised for a model, transformed) points at its source.

CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    mime        TEXT NOT NULL,
    -- Unknown when the bytes could not be decoded (kept as they came).
    width       INTEGER,
    height      INTEGER,
    format      TEXT,
    size_bytes  INTEGER NOT NULL,
    sha256      TEXT NOT NULL,
    -- The file's name inside artifacts/.
    file        TEXT NOT NULL,
    source_id   TEXT REFERENCES artifacts (id) ON DELETE SET NULL,
    -- How it was derived (`normalize`, `transform 512x384 webp`), if it was.
    derivation  TEXT,
    created_at  TEXT NOT NULL
) STRICT;

CREATE INDEX artifacts_by_user ON artifacts (user_id, created_at);

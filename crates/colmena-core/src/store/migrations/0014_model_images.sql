-- 0014: images that reach the model, and token counts that are true
-- (issue 14, SPEC H37, C11).
--
-- A model's "accepts images" flag: NULL means "by default from the model's
-- name" (the table in models/vision.rs); 1 and 0 are the user's choice.
ALTER TABLE models ADD COLUMN accepts_images INTEGER CHECK (accepts_images IN (0, 1));

-- The images attached to a chat message, in order: the original as the
-- person gave it (shown in the conversation) and the copy made for models
-- (sent with the message, and again with every later turn). An artifact
-- removed by retention leaves its row with NULL, so the conversation can say
-- the image is gone instead of silently dropping it.
CREATE TABLE message_images (
    message_id        INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    position          INTEGER NOT NULL,
    artifact_id       TEXT REFERENCES artifacts (id) ON DELETE SET NULL,
    model_artifact_id TEXT REFERENCES artifacts (id) ON DELETE SET NULL,
    name              TEXT NOT NULL,
    PRIMARY KEY (message_id, position)
) STRICT;

CREATE INDEX message_images_by_artifact ON message_images (artifact_id);
CREATE INDEX message_images_by_model_artifact ON message_images (model_artifact_id);

-- Whether each token count was reported by the provider: a server that
-- streams no usage (llama.cpp's) is "not reported", never 0. NULL on rows
-- written before this migration: their count was reported if it is above
-- zero (no real call takes zero prompt tokens).
ALTER TABLE runs ADD COLUMN prompt_tokens_reported INTEGER
    CHECK (prompt_tokens_reported IN (0, 1));
ALTER TABLE runs ADD COLUMN completion_tokens_reported INTEGER
    CHECK (completion_tokens_reported IN (0, 1));
ALTER TABLE variant_rounds ADD COLUMN prompt_tokens_reported INTEGER
    CHECK (prompt_tokens_reported IN (0, 1));
ALTER TABLE variant_rounds ADD COLUMN completion_tokens_reported INTEGER
    CHECK (completion_tokens_reported IN (0, 1));

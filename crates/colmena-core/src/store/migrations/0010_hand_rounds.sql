-- 0010: rounds written rather than generated (issue 12, item 2). A variant's
-- output may be written (edited) instead of generated; the text is saved as
-- a new round — rounds stay append-only. `by_hand` is 1 only when the
-- person wrote it through their own doors (the window `ui`, the `cli`); a
-- round another client wrote (an AI over MCP, HTTP) keeps 0 and is named by
-- its `client` column, so the history says which drafts came from a model,
-- which from the person and which from another client.
ALTER TABLE variant_rounds ADD COLUMN by_hand INTEGER NOT NULL DEFAULT 0 CHECK (by_hand IN (0, 1));

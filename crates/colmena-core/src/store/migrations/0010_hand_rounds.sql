-- 0010: rounds written by hand (issue 12, item 2). A person may edit a
-- variant's output; the edit is saved as a new round — rounds stay
-- append-only — and marked as written by hand, so the history says which
-- drafts came from a model and which from a person.
ALTER TABLE variant_rounds ADD COLUMN by_hand INTEGER NOT NULL DEFAULT 0 CHECK (by_hand IN (0, 1));

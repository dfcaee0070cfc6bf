-- 0022 (issue 37, chat on a par): a conversation may talk to a model other
-- than its agent's, and may be a branch of another (an edited or retried
-- message forks the conversation; the original is kept).
--
-- `model_id`: the model this conversation's agent answers with; NULL is
-- the agent's own. A deleted model falls back to the agent's.
ALTER TABLE threads ADD COLUMN model_id TEXT REFERENCES models (id) ON DELETE SET NULL;
-- `forked_from`: the conversation this one branched off; NULL once that
-- one is deleted.
ALTER TABLE threads ADD COLUMN forked_from TEXT REFERENCES threads (id) ON DELETE SET NULL;

-- A role's wake-up run (B6): the author it speaks as and the messages it
-- was handed. A wake-up cut off by a crash is resumed from its checkpoint
-- by the scheduler with the same bus identity, and marks exactly these
-- messages read when it completes — instead of a fresh run answering the
-- same mail a second time.
CREATE TABLE role_wakes (
    run_id      TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    author_id   TEXT NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    -- JSON array of bus message ids.
    message_ids TEXT NOT NULL
) STRICT;

CREATE INDEX role_wakes_by_author ON role_wakes (author_id);

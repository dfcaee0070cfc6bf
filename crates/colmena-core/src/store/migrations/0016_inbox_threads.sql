-- 0016: conversations as threads (issue 15, item 4). A message may answer
-- another, between the same two authors; the inbox shows a message and its
-- answers as one thread.

-- The message this one answers. Deleting that message (its sender may)
-- leaves the answer in place, answering nothing.
ALTER TABLE bus_messages ADD COLUMN reply_to TEXT
    REFERENCES bus_messages (id) ON DELETE SET NULL;

-- The thread a message is in: the id of its first message, set on every
-- answer and on the first message once it has one; null for a message
-- nobody answered and that answers nothing. No foreign key: a thread whose
-- first message was deleted is still one thread.
ALTER TABLE bus_messages ADD COLUMN thread_root TEXT;

-- A deleted message's answers are found by index (the SET NULL above), and
-- a thread is read by index. Both partial: most mail is in no thread.
CREATE INDEX bus_messages_reply_to ON bus_messages (reply_to) WHERE reply_to IS NOT NULL;
CREATE INDEX bus_messages_thread ON bus_messages (thread_root, created_at)
    WHERE thread_root IS NOT NULL;

-- "The conversation between A and B, newest first", a page at a time:
-- one range scan per direction.
CREATE INDEX bus_messages_pair ON bus_messages (from_author, to_author, created_at);

-- 0017: a sender's own id for a message (issue 17). A client that sends
-- again because it never saw the answer (a desktop's outbox after a cut
-- link, a script's retry) names the same message, and the bus keeps it
-- once. Scoped to the sender: one author's ids say nothing about another's.
-- Kept apart from bus_messages so that deleting the message does not let a
-- late retry deliver it a second time.
CREATE TABLE bus_client_ids (
    from_author    TEXT NOT NULL,
    client_id      TEXT NOT NULL,
    message_id     TEXT NOT NULL,
    -- SHA-256 of what was asked (recipient, priority, answer, body): the
    -- same id for other mail is the client's mistake, refused.
    request_sha256 BLOB NOT NULL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (from_author, client_id)
) STRICT, WITHOUT ROWID;

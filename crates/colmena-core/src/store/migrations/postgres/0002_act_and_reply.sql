-- 0002 (issue "Safe by default, round two"), as SQLite's 0019: a role's old
-- default grant ("send" and nothing else) becomes the new default
-- ("reply": answer the authors whose mail a wake-up was handed). A role a
-- person gave more keeps what it was given.
UPDATE authors SET unattended = '{reply}' WHERE kind = 'role' AND unattended = '{send}';

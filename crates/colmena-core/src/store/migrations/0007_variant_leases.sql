-- A variant being generated is leased by the process generating it, as a
-- run is (0003): `host:pid:instance` and when the lease runs out unless
-- renewed. A variant left `queued` or `streaming` by a process that died is
-- set to `error` at the next start instead of spinning for ever (SPEC C4).
ALTER TABLE canvas_variants ADD COLUMN lease_owner TEXT;
ALTER TABLE canvas_variants ADD COLUMN lease_expires_at TEXT;

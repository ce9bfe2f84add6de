-- Idempotency keys of protoc-gen-mcpwrite tools: the authoritative, durable
-- layer. One row per (tenant, tool, client key). A claim is an in-progress
-- row whose lease ends at lease_until (= expires_at); a completed row holds
-- the tool result envelope byte for byte (BYTEA, not JSONB, so a replay is
-- verbatim) until expires_at.
CREATE TABLE IF NOT EXISTS mcpwrite_idempotency_keys (
    tenant_id         TEXT        NOT NULL,
    tool              TEXT        NOT NULL,
    client_request_id TEXT        NOT NULL,
    fingerprint       TEXT        NOT NULL,
    state             SMALLINT    NOT NULL CHECK (state IN (1, 2)), -- 1 in progress, 2 completed
    response_payload  BYTEA,
    is_error          BOOLEAN     NOT NULL DEFAULT false,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_until       TIMESTAMPTZ,
    expires_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, tool, client_request_id),
    CHECK ((state = 1) = (lease_until IS NOT NULL)),
    CHECK ((state = 2) = (response_payload IS NOT NULL))
);

CREATE INDEX IF NOT EXISTS mcpwrite_idempotency_keys_expires_at_idx
    ON mcpwrite_idempotency_keys (expires_at);

-- shared functions --
-- mcpwrite_idempotency_cleanup deletes the expired rows of an idempotency
-- table (by default mcpwrite_idempotency_keys) and returns how many; run it
-- from a scheduler (pg_cron, a cron job) or through Store.Cleanup.
CREATE OR REPLACE FUNCTION mcpwrite_idempotency_cleanup(tbl text DEFAULT 'mcpwrite_idempotency_keys')
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format('DELETE FROM %s WHERE expires_at <= now()', tbl::regclass);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

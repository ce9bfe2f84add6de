-- shared functions, continued: a write that records its outcome in its own
-- transaction reserves its key there instead of claiming it.
-- mcpwrite_idempotency_reserve takes a transaction-scoped advisory lock on
-- the key of the table tbl (held until the transaction commits or rolls
-- back, or its session ends: a crash holds nothing), then returns the key's
-- live row, read with a snapshot taken after the lock was granted. A
-- concurrent call of the same key waits for the first one's transaction,
-- then finds its completed row (a replay) or nothing (the first rolled
-- back: it runs). The outcome is then written once, already completed, by
-- the write's transaction: no in-progress row is written and updated.
-- mcpwrite_idempotency_lost fails the statement that records the outcome
-- when the key is no longer the transaction's (a claim made without the
-- lock took it), so that the transaction cannot commit its write without
-- its outcome. Idempotent, like every migration here.
CREATE OR REPLACE FUNCTION mcpwrite_idempotency_reserve(tbl regclass, p_tenant text, p_tool text, p_key text, p_now timestamptz)
RETURNS TABLE (fingerprint text, state smallint, response_payload bytea, is_error boolean, created_at timestamptz, lease_until timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(concat_ws(':', tbl::oid, length(p_tenant), p_tenant, length(p_tool), p_tool, p_key), 0));
    RETURN QUERY EXECUTE format('SELECT k.fingerprint, k.state, k.response_payload, k.is_error, k.created_at, k.lease_until, k.expires_at FROM %s k
        WHERE k.tenant_id = $1 AND k.tool = $2 AND k.client_request_id = $3 AND k.expires_at > $4', tbl)
        USING p_tenant, p_tool, p_key, p_now;
END
$$;

CREATE OR REPLACE FUNCTION mcpwrite_idempotency_lost(p_tool text, p_key text)
RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'MWK01',
        MESSAGE = format('idempotency key %s of tool %s is held by another call; the write is rolled back', p_key, p_tool);
END
$$;

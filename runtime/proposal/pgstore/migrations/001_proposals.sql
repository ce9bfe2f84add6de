-- Proposals of protoc-gen-mcpwrite: complete, enriched write requests held
-- server-side until the agent applies them by id (docs/architecture.md,
-- "Confirmation").
--
-- The store substitutes its configured table name for every occurrence of
-- "mcpwrite_proposals", so this file also runs as-is with psql for the
-- default name. Every statement is idempotent: Migrate runs on each start.
--
-- arguments and preview are json, not jsonb: json keeps the exact bytes the
-- agent sent and the key order of the preview it was shown; nothing queries
-- inside them.

CREATE TABLE IF NOT EXISTS mcpwrite_proposals (
    id              text        PRIMARY KEY,
    tenant          text        NOT NULL,
    principal       text        NOT NULL,
    tool            text        NOT NULL,
    classification  text        NOT NULL DEFAULT '',
    summary         text        NOT NULL DEFAULT '',
    request         bytea,
    arguments       json,
    preview         json,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    -- 1 pending, 2 applying, 3 applied, 4 discarded (proposal.State)
    state           smallint    NOT NULL DEFAULT 1 CHECK (state BETWEEN 1 AND 4),
    result          bytea,
    result_is_error boolean     NOT NULL DEFAULT false,
    applied_at      timestamptz
);

CREATE INDEX IF NOT EXISTS mcpwrite_proposals_owner_idx
    ON mcpwrite_proposals (tenant, principal);

CREATE INDEX IF NOT EXISTS mcpwrite_proposals_expires_idx
    ON mcpwrite_proposals (expires_at);

-- Deletes every proposal that expired at or before cutoff (in any state) and
-- returns how many. Run it from the store's Cleanup or a scheduler:
--   SELECT mcpwrite_proposals_cleanup(now() - interval '1 hour');
CREATE OR REPLACE FUNCTION mcpwrite_proposals_cleanup(cutoff timestamptz)
RETURNS bigint
LANGUAGE sql
AS $fn$
    WITH deleted AS (
        DELETE FROM mcpwrite_proposals WHERE expires_at <= cutoff RETURNING 1
    )
    SELECT count(*) FROM deleted;
$fn$;

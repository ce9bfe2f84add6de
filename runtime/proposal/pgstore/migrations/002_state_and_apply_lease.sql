-- What the user saw when a proposal was made (the entity it changes and a
-- digest and summary of that entity's state), so applying after the state
-- changed is refused as stale; and when the current apply began, so an
-- apply that never finished (a crash, a failed save) can be begun again
-- after the store's apply lease. Idempotent, like every migration here.

ALTER TABLE mcpwrite_proposals ADD COLUMN IF NOT EXISTS target text NOT NULL DEFAULT '';
ALTER TABLE mcpwrite_proposals ADD COLUMN IF NOT EXISTS state_digest text NOT NULL DEFAULT '';
ALTER TABLE mcpwrite_proposals ADD COLUMN IF NOT EXISTS state_summary text NOT NULL DEFAULT '';
ALTER TABLE mcpwrite_proposals ADD COLUMN IF NOT EXISTS apply_started_at timestamptz;

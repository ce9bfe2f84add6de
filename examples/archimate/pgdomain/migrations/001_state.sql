-- Version 1: each tenant's state as one jsonb document, and the outbox.
-- Kept so that Migrate upgrades a database made by that version; version 2
-- moves the state into rows.
CREATE TABLE IF NOT EXISTS archimate_state (
    tenant  text   PRIMARY KEY,
    state   jsonb  NOT NULL,
    version bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS archimate_outbox (
    id          bigserial   PRIMARY KEY,
    tenant      text        NOT NULL,
    tool        text        NOT NULL,
    request     jsonb       NOT NULL,
    response    jsonb       NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now()
);

-- Version 2: elements, their properties and relationships as rows. A write
-- locks and rewrites only the rows it changes. Ids are unique per tenant;
-- names are unique per model, compared by name_key (the domain's
-- case-insensitive form); name_norm (case and separators removed) serves
-- the references that name an element and the similar-name suggestions.
-- Relationship ends are foreign keys. parent_id is a reference checked when
-- an element is created: the domain lets a parent be deleted and its
-- children keep the id, so it is no foreign key.
CREATE SEQUENCE IF NOT EXISTS archimate_births;

CREATE TABLE IF NOT EXISTS archimate_elements (
    tenant      text          NOT NULL,
    id          varchar(256)  NOT NULL,
    model_id    varchar(256)  NOT NULL,
    type        text          NOT NULL,
    layer       text          NOT NULL,
    name        varchar(1024) NOT NULL,
    name_key    text          NOT NULL,
    name_norm   text          NOT NULL,
    description text          NOT NULL DEFAULT '',
    parent_id   varchar(256)  NOT NULL DEFAULT '',
    version     integer       NOT NULL,
    born        bigint        NOT NULL DEFAULT nextval('archimate_births'),
    CONSTRAINT archimate_elements_pkey PRIMARY KEY (tenant, id)
);
ALTER SEQUENCE archimate_births OWNED BY archimate_elements.born;
CREATE UNIQUE INDEX IF NOT EXISTS archimate_elements_name_key
    ON archimate_elements (tenant, model_id, name_key);
CREATE INDEX IF NOT EXISTS archimate_elements_name_norm
    ON archimate_elements (tenant, model_id, name_norm);

CREATE TABLE IF NOT EXISTS archimate_properties (
    tenant     text         NOT NULL,
    element_id varchar(256) NOT NULL,
    key        varchar(256) NOT NULL,
    value      text         NOT NULL,
    CONSTRAINT archimate_properties_pkey PRIMARY KEY (tenant, element_id, key),
    CONSTRAINT archimate_properties_element_fk FOREIGN KEY (tenant, element_id)
        REFERENCES archimate_elements (tenant, id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS archimate_relationships (
    tenant      text          NOT NULL,
    id          varchar(256)  NOT NULL,
    type        text          NOT NULL,
    source_id   varchar(256)  NOT NULL,
    target_id   varchar(256)  NOT NULL,
    name        varchar(1024) NOT NULL DEFAULT '',
    description text          NOT NULL DEFAULT '',
    CONSTRAINT archimate_relationships_pkey PRIMARY KEY (tenant, id),
    CONSTRAINT archimate_relationships_source_fk FOREIGN KEY (tenant, source_id)
        REFERENCES archimate_elements (tenant, id),
    CONSTRAINT archimate_relationships_target_fk FOREIGN KEY (tenant, target_id)
        REFERENCES archimate_elements (tenant, id)
);
CREATE INDEX IF NOT EXISTS archimate_relationships_source
    ON archimate_relationships (tenant, source_id);
CREATE INDEX IF NOT EXISTS archimate_relationships_target
    ON archimate_relationships (tenant, target_id);

-- The outbox: one row per committed write, in its transaction. txid orders
-- rows by commit for a relay; delivered_at marks what it has published.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = 'archimate_outbox' AND column_name = 'occurred_at') THEN
        ALTER TABLE archimate_outbox RENAME COLUMN occurred_at TO created_at;
    END IF;
END
$$;
ALTER TABLE archimate_outbox ADD COLUMN IF NOT EXISTS txid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE archimate_outbox ADD COLUMN IF NOT EXISTS delivered_at timestamptz;
CREATE INDEX IF NOT EXISTS archimate_outbox_undelivered
    ON archimate_outbox (txid, id) WHERE delivered_at IS NULL;

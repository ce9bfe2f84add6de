-- Version 4: no index leads with the tenant. On tables never analysed
-- (autovacuum off, a fresh deployment, a bulk import) the planner guesses
-- every equality equally selective, so an index whose first column is the
-- tenant looked as good as the one a lookup needs, and a write read its
-- whole tenant. Keys and indexes now lead with the id, name or parent a
-- write looks up, the tenant after it, so each read of a write can only be
-- an index lookup of that value. The not-found suggestions, which do list
-- a tenant's elements, read a partial index only their query names
-- (born > 0, which every row satisfies: born comes from the sequence).
ALTER TABLE archimate_relationships DROP CONSTRAINT archimate_relationships_source_fk;
ALTER TABLE archimate_relationships DROP CONSTRAINT archimate_relationships_target_fk;
ALTER TABLE archimate_properties DROP CONSTRAINT archimate_properties_element_fk;

ALTER TABLE archimate_elements DROP CONSTRAINT archimate_elements_pkey;
ALTER TABLE archimate_elements ADD CONSTRAINT archimate_elements_pkey PRIMARY KEY (id, tenant);
DROP INDEX archimate_elements_name_key;
CREATE UNIQUE INDEX archimate_elements_name_key ON archimate_elements (name_key, model_id, tenant);
DROP INDEX archimate_elements_name_norm;
CREATE INDEX archimate_elements_name_norm ON archimate_elements (name_norm, model_id, tenant);
DROP INDEX archimate_elements_parent;
CREATE INDEX archimate_elements_parent ON archimate_elements (parent_id, tenant) WHERE parent_id <> '';
CREATE INDEX archimate_elements_listing ON archimate_elements (tenant) INCLUDE (id, model_id, type, name) WHERE born > 0;

ALTER TABLE archimate_properties DROP CONSTRAINT archimate_properties_pkey;
ALTER TABLE archimate_properties ADD CONSTRAINT archimate_properties_pkey PRIMARY KEY (element_id, tenant, key);
ALTER TABLE archimate_properties ADD CONSTRAINT archimate_properties_element_fk FOREIGN KEY (tenant, element_id)
    REFERENCES archimate_elements (tenant, id) ON DELETE CASCADE;

ALTER TABLE archimate_relationships DROP CONSTRAINT archimate_relationships_pkey;
ALTER TABLE archimate_relationships ADD CONSTRAINT archimate_relationships_pkey PRIMARY KEY (id, tenant);
DROP INDEX archimate_relationships_source;
CREATE INDEX archimate_relationships_source ON archimate_relationships (source_id, tenant);
DROP INDEX archimate_relationships_target;
CREATE INDEX archimate_relationships_target ON archimate_relationships (target_id, tenant);
ALTER TABLE archimate_relationships ADD CONSTRAINT archimate_relationships_source_fk FOREIGN KEY (tenant, source_id)
    REFERENCES archimate_elements (tenant, id);
ALTER TABLE archimate_relationships ADD CONSTRAINT archimate_relationships_target_fk FOREIGN KEY (tenant, target_id)
    REFERENCES archimate_elements (tenant, id);

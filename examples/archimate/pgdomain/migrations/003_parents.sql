-- Version 3: parent_id is the parent of a composition. Deleting an element
-- clears parent_id on its parts (and bumps their version), so the delete
-- reads the parts by this index. Parts whose parent was deleted before
-- version 3 kept the stale id: it is cleared here the same way.
CREATE INDEX IF NOT EXISTS archimate_elements_parent
    ON archimate_elements (tenant, parent_id) WHERE parent_id <> '';
UPDATE archimate_elements c SET parent_id = '', version = c.version + 1
 WHERE c.parent_id <> ''
   AND NOT EXISTS (SELECT 1 FROM archimate_elements p WHERE p.tenant = c.tenant AND p.id = c.parent_id);

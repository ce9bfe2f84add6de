package pgdomain

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// elementColumns are the columns an element is read from, properties as
// one jsonb object.
const elementColumns = `e.id, e.model_id, e.type, e.layer, e.name, e.description, e.parent_id, e.version, e.born,
 (SELECT coalesce(jsonb_object_agg(p.key, p.value), '{}') FROM %[1]s_properties p WHERE p.tenant = e.tenant AND p.element_id = e.id)`

// The row locks of a footprint's loaded elements (footprint.lock).
const (
	lockShare  = "FOR KEY SHARE OF e"     // creates: the referenced rows stay
	lockUpdate = "FOR NO KEY UPDATE OF e" // updates: relationships may still point at them
	lockDelete = "FOR UPDATE OF e"        // deletes
)

// lockMarker stands in loadElements for the row lock of the loaded
// elements (footprint.lock), inside the subquery that reads each one.
const lockMarker = "/*lock*/"

// sqlText holds the repository's statements, built once for its prefix.
type sqlText struct {
	loadElements, loadRelationships, allElements string
	// loadElementsLocked is loadElements with each footprint lock ("" for
	// reads) in place of lockMarker, built once.
	loadElementsLocked                                    map[string]string
	insertElements, insertProperties, insertRelationships string
	updateElement, deleteProperties                       string
	deleteElements, deleteRelationships, insertOutbox     string
}

func newSQL(p string) sqlText {
	t := newSQLText(p)
	t.loadElementsLocked = map[string]string{}
	for _, lock := range []string{"", lockShare, lockUpdate, lockDelete} {
		t.loadElementsLocked[lock] = strings.Replace(t.loadElements, lockMarker, lock, 1)
	}
	return t
}

func newSQLText(p string) sqlText {
	cols := fmt.Sprintf(elementColumns, p)
	return sqlText{
		// Each part of the union is one index lookup, whatever the tenant's
		// size and whether or not the tables were ever analysed (no index
		// leads with the tenant, migration 004): by id, by name key or normalised name in the model, and by
		// name key in the model of the ids (a rename), and by parent (the
		// parts of a deleted element). Each id found is then read (and
		// locked: lockMarker) by its primary key in a lateral subquery, so
		// no plan, custom or generic, scans the elements of a tenant to
		// match them (a generic plan of "e.tenant = $1 AND e.id IN (...)"
		// scanned the whole table).
		loadElements: `SELECT x.* FROM (
   SELECT i.id FROM ` + p + `_elements i WHERE i.tenant = $1 AND i.id = ANY($2)
   UNION SELECT k.id FROM ` + p + `_elements k WHERE k.tenant = $1 AND k.model_id = $3 AND k.name_key = ANY($4)
   UNION SELECT o.id FROM ` + p + `_elements o WHERE o.tenant = $1 AND o.model_id = $3 AND o.name_norm = ANY($6)
   UNION SELECT n.id FROM ` + p + `_elements m JOIN ` + p + `_elements n ON n.tenant = m.tenant AND n.model_id = m.model_id
     WHERE m.tenant = $1 AND m.id = ANY($2) AND n.name_key = ANY($5)
   UNION SELECT c.id FROM ` + p + `_elements c WHERE c.tenant = $1 AND c.parent_id = ANY($7) AND c.parent_id <> '') s(id)
 CROSS JOIN LATERAL (SELECT ` + cols + ` FROM ` + p + `_elements e WHERE e.id = s.id AND e.tenant = $1 ` + lockMarker + `) x`,
		loadRelationships: `SELECT id, type, source_id, target_id, name, description FROM ` + p + `_relationships
 WHERE tenant = $1 AND (id = ANY($2) OR source_id = ANY($3) OR target_id = ANY($3))`,
		// born > 0 holds for every row; it names the partial index
		// elements_listing, the one index that leads with the tenant, so
		// that no write's read can use it to walk a tenant (migration 004).
		allElements: `SELECT id, model_id, type, name FROM ` + p + `_elements WHERE tenant = $1 AND born > 0`,
		insertElements: `INSERT INTO ` + p + `_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, description, parent_id, version, born)
 SELECT $1, u.id, u.model_id, u.type, u.layer, u.name, u.name_key, u.name_norm, u.description, u.parent_id, u.version,
        CASE WHEN u.born > 0 THEN u.born ELSE nextval('` + p + `_births') END
 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::bigint[])
   AS u(id, model_id, type, layer, name, name_key, name_norm, description, parent_id, version, born)`,
		insertProperties: `INSERT INTO ` + p + `_properties (tenant, element_id, key, value)
 SELECT $1, u.element_id, u.key, u.value FROM unnest($2::text[], $3::text[], $4::text[]) AS u(element_id, key, value)
 ON CONFLICT (tenant, element_id, key) DO UPDATE SET value = EXCLUDED.value`,
		insertRelationships: `INSERT INTO ` + p + `_relationships (tenant, id, type, source_id, target_id, name, description)
 SELECT $1, u.id, u.type, u.source_id, u.target_id, u.name, u.description
 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(id, type, source_id, target_id, name, description)`,
		updateElement: `UPDATE ` + p + `_elements SET model_id = $3, type = $4, layer = $5, name = $6, name_key = $7, name_norm = $8,
 description = $9, parent_id = $10, version = $11 WHERE tenant = $1 AND id = $2`,
		deleteProperties:    `DELETE FROM ` + p + `_properties WHERE tenant = $1 AND element_id = $2 AND key = ANY($3)`,
		deleteElements:      `DELETE FROM ` + p + `_elements WHERE tenant = $1 AND id = ANY($2)`,
		deleteRelationships: `DELETE FROM ` + p + `_relationships WHERE tenant = $1 AND id = ANY($2)`,
		insertOutbox:        `INSERT INTO ` + p + `_outbox (tenant, tool, request, response) VALUES ($1, $2, $3, $4)`,
	}
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

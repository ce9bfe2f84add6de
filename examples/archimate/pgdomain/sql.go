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
	loadElementsLocked map[string]string
	// loadElementsReserving is loadElementsLocked taking the reservation
	// lock of the write's idempotency key first (idempg.Store.ReserveLock,
	// its parameters after loadElements'), built by New when the
	// idempotency store offers it; nil otherwise.
	loadElementsReserving                                 map[string]string
	insertElements, insertProperties, insertRelationships string
	updateElement, deleteProperties                       string
	deleteElement, deleteRelationship, insertOutbox       string
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
		// Every read of a table is an index lookup of one value, whatever
		// the tenant's size, whether or not the tables were ever analysed,
		// and whether PostgreSQL runs a custom plan or a generic plan it
		// chose while the tables were small (docs/production.md, "Planner
		// statistics"). Each value asked for comes from unnest and is
		// looked up in a LATERAL subquery that an index answers by
		// equality on all its columns: LIMIT 1 on a unique key, OFFSET 0
		// otherwise, which keeps the subquery from being flattened into a
		// join the planner could run as a hash join over a scan of the
		// table. Written as "tenant = $1 AND id = ANY($2)", a generic plan
		// made on a table of a few rows scans it (an array of unknown
		// length looks dearer to look up than a small table is to read),
		// and keeps scanning it as it grows. The ids are the footprint's
		// ids; then elements by name key or normalised name in the model,
		// by name key in the model of the ids (a rename), and by parent
		// (the parts of a deleted element). Each id found is then read
		// (and locked: lockMarker) by its primary key, LIMIT 1 keeping that
		// subquery too from being flattened when it locks nothing; an id
		// that does not exist reads nothing.
		loadElements: `SELECT x.* FROM (
   SELECT w.id FROM unnest($2::text[]) w(id)
   UNION SELECT k.id FROM unnest($4::text[]) w(key) CROSS JOIN LATERAL
     (SELECT k.id FROM ` + p + `_elements k WHERE k.name_key = w.key AND k.model_id = $3 AND k.tenant = $1 LIMIT 1) k
   UNION SELECT o.id FROM unnest($6::text[]) w(norm) CROSS JOIN LATERAL
     (SELECT o.id FROM ` + p + `_elements o WHERE o.name_norm = w.norm AND o.model_id = $3 AND o.tenant = $1 OFFSET 0) o
   UNION SELECT n.id FROM unnest($2::text[]) w(id) CROSS JOIN LATERAL
     (SELECT m.model_id FROM ` + p + `_elements m WHERE m.id = w.id AND m.tenant = $1 LIMIT 1) m
     CROSS JOIN unnest($5::text[]) v(key) CROSS JOIN LATERAL
     (SELECT n.id FROM ` + p + `_elements n WHERE n.name_key = v.key AND n.model_id = m.model_id AND n.tenant = $1 LIMIT 1) n
   UNION SELECT c.id FROM unnest($7::text[]) w(parent) CROSS JOIN LATERAL
     (SELECT c.id FROM ` + p + `_elements c WHERE c.parent_id = w.parent AND c.tenant = $1 AND c.parent_id <> '' OFFSET 0) c) s(id)
 CROSS JOIN LATERAL (SELECT ` + cols + ` FROM ` + p + `_elements e WHERE e.id = s.id AND e.tenant = $1 LIMIT 1 ` + lockMarker + `) x`,
		// The relationships by id, and those from or to the elements, each
		// read by an index lookup as loadElements reads elements (the
		// union drops a row found twice).
		loadRelationships: `SELECT i.id, i.type, i.source_id, i.target_id, i.name, i.description FROM unnest($2::text[]) w(id) CROSS JOIN LATERAL
     (SELECT i.* FROM ` + p + `_relationships i WHERE i.id = w.id AND i.tenant = $1 LIMIT 1) i
 UNION SELECT s.id, s.type, s.source_id, s.target_id, s.name, s.description FROM unnest($3::text[]) w(el) CROSS JOIN LATERAL
     (SELECT s.* FROM ` + p + `_relationships s WHERE s.source_id = w.el AND s.tenant = $1 OFFSET 0) s
 UNION SELECT t.id, t.type, t.source_id, t.target_id, t.name, t.description FROM unnest($3::text[]) w(el) CROSS JOIN LATERAL
     (SELECT t.* FROM ` + p + `_relationships t WHERE t.target_id = w.el AND t.tenant = $1 OFFSET 0) t`,
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
		deleteProperties: `DELETE FROM ` + p + `_properties WHERE tenant = $1 AND element_id = $2 AND key = ANY($3)`,
		// One row by its primary key per statement: "id = ANY($2)" has the
		// generic-plan scan loadElements avoids, and a DELETE cannot read
		// its target through a LATERAL lookup.
		deleteElement:      `DELETE FROM ` + p + `_elements WHERE id = $2 AND tenant = $1`,
		deleteRelationship: `DELETE FROM ` + p + `_relationships WHERE id = $2 AND tenant = $1`,
		insertOutbox:       `INSERT INTO ` + p + `_outbox (tenant, tool, request, response) VALUES ($1, $2, $3, $4)`,
	}
}

// elementsArgs is how many parameters loadElements takes (elementsQuery's
// arguments).
const elementsArgs = 7

// reserving builds loadElementsReserving: loadElementsLocked whose WHERE
// takes the reservation lock expression lock (its parameters after
// loadElements') before any row is read.
func (t *sqlText) reserving(lock string) {
	t.loadElementsReserving = map[string]string{}
	for mode, q := range t.loadElementsLocked {
		// The comment, at the start so that pg_stat_activity's truncated
		// query text shows it, names the lock the statement may wait for.
		t.loadElementsReserving[mode] = strings.Replace(q, "SELECT ", "SELECT /* takes the key lock of mcpwrite_idempotency_reserve */ ", 1) +
			"\n WHERE (SELECT " + lock + ")"
	}
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

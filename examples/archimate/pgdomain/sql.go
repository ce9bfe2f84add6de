package pgdomain

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
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
	loadElementsReserving map[string]string
	// reads is loadElements by the shape of a footprint (elementsSQL) with
	// each row lock in place of lockMarker, by shape and lock.
	reads map[readKey]string
	// readsReserving is reads taking the reservation lock as
	// loadElementsReserving does (its parameters after the read's): a keyed
	// write's footprint read.
	readsReserving map[readKey]string
	// reserveLock takes the reservation lock alone (its parameters from
	// $1): a keyed create's first statement when it reads no row
	// (footprint.fresh); "" when the idempotency store does not offer it.
	reserveLock                                     string
	insertElements, insertElement                   string
	insertProperties, insertRelationships           string
	updateElement, deleteProperties                 string
	deleteElement, deleteRelationship, insertOutbox string
	// withOutbox is, by each statement a write's rows are changed with,
	// that statement and insertOutbox as one (outboxWith): a write's last
	// change and its outbox row are one statement.
	withOutbox map[string]string
}

// outboxArgs is how many parameters insertOutbox takes.
const outboxArgs = 4

var paramRE = regexp.MustCompile(`\$([0-9]+)`)

// outboxWith is change, a data-modifying statement without RETURNING, and
// insertOutbox as one statement: change in a WITH, its parameters
// numbered after insertOutbox's. Both are written or neither; they share
// one snapshot, which neither reads.
func (t *sqlText) outboxWith(change string) string {
	shifted := paramRE.ReplaceAllStringFunc(change, func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		return "$" + strconv.Itoa(i+outboxArgs)
	})
	return "WITH change AS (" + shifted + ")\n" + t.insertOutbox
}

// readKey names a footprint read of sqlText.reads: its shape and its row
// lock.
type readKey struct {
	shape readShape
	lock  string
}

func newSQL(p string) sqlText {
	t := newSQLText(p)
	t.withOutbox = map[string]string{}
	for _, change := range []string{t.insertElements, t.insertElement, t.insertProperties, t.insertRelationships,
		t.updateElement, t.deleteProperties, t.deleteElement, t.deleteRelationship} {
		t.withOutbox[change] = t.outboxWith(change)
	}
	t.loadElementsLocked = map[string]string{}
	t.reads = map[readKey]string{}
	cols := fmt.Sprintf(elementColumns, p)
	for _, lock := range rowLocks {
		t.loadElementsLocked[lock] = strings.Replace(t.loadElements, lockMarker, lock, 1)
		for shape := range readAll + 1 {
			t.reads[readKey{shape, lock}] = strings.Replace(elementsSQL(p, cols, shape), lockMarker, lock, 1)
		}
	}
	return t
}

// rowLocks are the row locks a footprint read takes ("" for none).
var rowLocks = []string{"", lockShare, lockUpdate, lockDelete}

// readShape is the set of lookups a footprint read makes besides its ids:
// loadElements makes them all, and reads by a shape without a lookup
// whose values are empty (elementsSQL). PostgreSQL starts every node of a
// statement's plan each time it runs it, whether or not a node reads a
// row; a create, which looks up its id and its name, starts a third of
// loadElements' nodes.
type readShape uint8

const (
	readNames   readShape = 1 << iota // names in the model (footprint.names)
	readNorms                         // normalised names in the model (footprint.norms)
	readRenames                       // names in the model of the ids (footprint.sameModel)
	readParts                         // elements by parent (footprint.parts)
	readAll     = readNames | readNorms | readRenames | readParts
)

// readArgs is how many parameters a read of shape takes (elementsSQL).
func readArgs(shape readShape) int {
	n := 2 // the tenant, the ids
	if shape&(readNames|readNorms) != 0 {
		n++ // the model
	}
	for _, b := range []readShape{readNames, readRenames, readNorms, readParts} {
		if shape&b != 0 {
			n++
		}
	}
	return n
}

// elementsSQL is loadElements (lockMarker in place of its row lock) making
// only shape's lookups besides the ids, its parameters numbered in the
// order of loadElements' of those it uses (elementsArgsOf). Every lookup
// is the one loadElements makes; with the ids alone there is no union to
// drop a row found twice, and the caller passes distinct ids.
func elementsSQL(p, cols string, shape readShape) string {
	n := 1
	next := func() string { n++; return "$" + strconv.Itoa(n) }
	ids := next()
	var model, names, same, norms, parts string
	if shape&(readNames|readNorms) != 0 {
		model = next()
	}
	if shape&readNames != 0 {
		names = next()
	}
	if shape&readRenames != 0 {
		same = next()
	}
	if shape&readNorms != 0 {
		norms = next()
	}
	if shape&readParts != 0 {
		parts = next()
	}
	q := `SELECT x.* FROM (
   SELECT w.id FROM unnest(` + ids + `::text[]) w(id)`
	if names != "" {
		q += `
   UNION SELECT k.id FROM unnest(` + names + `::text[]) w(key) CROSS JOIN LATERAL
     (SELECT k.id FROM ` + p + `_elements k WHERE k.name_key = w.key AND k.model_id = ` + model + ` AND k.tenant = $1 LIMIT 1) k`
	}
	if norms != "" {
		q += `
   UNION SELECT o.id FROM unnest(` + norms + `::text[]) w(norm) CROSS JOIN LATERAL
     (SELECT o.id FROM ` + p + `_elements o WHERE o.name_norm = w.norm AND o.model_id = ` + model + ` AND o.tenant = $1 OFFSET 0) o`
	}
	if same != "" {
		q += `
   UNION SELECT n.id FROM unnest(` + ids + `::text[]) w(id) CROSS JOIN LATERAL
     (SELECT m.model_id FROM ` + p + `_elements m WHERE m.id = w.id AND m.tenant = $1 LIMIT 1) m
     CROSS JOIN unnest(` + same + `::text[]) v(key) CROSS JOIN LATERAL
     (SELECT n.id FROM ` + p + `_elements n WHERE n.name_key = v.key AND n.model_id = m.model_id AND n.tenant = $1 LIMIT 1) n`
	}
	if parts != "" {
		q += `
   UNION SELECT c.id FROM unnest(` + parts + `::text[]) w(parent) CROSS JOIN LATERAL
     (SELECT c.id FROM ` + p + `_elements c WHERE c.parent_id = w.parent AND c.tenant = $1 AND c.parent_id <> '' OFFSET 0) c`
	}
	return q + `) s(id)
 CROSS JOIN LATERAL (SELECT ` + cols + ` FROM ` + p + `_elements e WHERE e.id = s.id AND e.tenant = $1 LIMIT 1 ` + lockMarker + `) x`
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
		loadElements: elementsSQL(p, cols, readAll),
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
		// insertElement is insertElements for one element, its values as
		// parameters: unnest and its projection cost PostgreSQL more than
		// the row's insert, and a write creates one element at a time.
		insertElement: `INSERT INTO ` + p + `_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, description, parent_id, version, born)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::int, CASE WHEN $12::bigint > 0 THEN $12::bigint ELSE nextval('` + p + `_births') END)`,
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

// reserving builds loadElementsReserving, readsReserving and reserveLock:
// loadElementsLocked and reads whose WHERE takes the reservation lock
// expression lock(first) (its parameters from $first, after the read's)
// before any row is read.
func (t *sqlText) reserving(lock func(first int) string) {
	// The comment, at the start so that pg_stat_activity's truncated query
	// text shows it, names the lock the statement may wait for.
	const comment = "SELECT /* takes the key lock of mcpwrite_idempotency_reserve */ "
	reserve := func(q string, first int) string {
		return strings.Replace(q, "SELECT ", comment, 1) + "\n WHERE (SELECT " + lock(first) + ")"
	}
	t.reserveLock = comment + lock(1)
	t.loadElementsReserving = map[string]string{}
	for mode, q := range t.loadElementsLocked {
		t.loadElementsReserving[mode] = reserve(q, elementsArgs+1)
	}
	t.readsReserving = map[readKey]string{}
	for k, q := range t.reads {
		t.readsReserving[k] = reserve(q, readArgs(k.shape)+1)
	}
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

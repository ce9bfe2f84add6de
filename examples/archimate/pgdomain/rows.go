package pgdomain

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// footprint is what a request reads of its tenant: the rows the domain's
// rules look at to decide it. A write loads (and locks) exactly these.
type footprint struct {
	ids       []string // elements by id
	model     string   // the model names are looked up in
	names     []string // name keys in model
	norms     []string // normalised names in model (references by name)
	sameModel []string // name keys in the model of the element ids (a rename)
	relIDs    []string // relationships by id
	attached  []string // relationships touching these element ids
	parts     []string // elements whose parent_id is one of these (a delete)
	lock      string   // row lock of the loaded elements ("" for reads)
	// fresh: the element looked up by ids[0] and names does not exist
	// unless the write fails, which a unique index of the element it
	// inserts then tells (a create: elements_pkey and elements_name_key
	// check its id and its name), so a keyed write may read only the other
	// ids (a parent; claimAndLoad).
	fresh bool
}

// reads reports whether a fresh footprint reads a row when its own id
// and names are not looked up: its other ids (a parent).
func (f footprint) reads() bool { return len(f.ids) > 1 }

// refFootprint is what resolving the references refs in model reads: the
// elements with such an id, or such a name up to case and separators.
func refFootprint(model string, refs ...string) footprint {
	f := footprint{model: model}
	for _, ref := range refs {
		if ref == "" {
			continue
		}
		f.ids = append(f.ids, ref)
		f.names = append(f.names, domain.NameKey(ref))
		if n := suggest.Normalize(ref); n != "" {
			f.norms = append(f.norms, n)
		}
	}
	return f
}

// footprintOf is the footprint of req; withState adds what StatePreview
// reads (the relationships of an updated element).
func footprintOf(req proto.Message, withState bool) footprint {
	var f footprint
	switch req := req.(type) {
	case *archimatev1.CreateElementRequest:
		f = footprint{ids: []string{req.GetId()}, model: req.GetModelId(), names: []string{domain.NameKey(req.GetName())}, lock: lockShare, fresh: true}
		if p := req.GetParentId(); p != "" {
			f.ids = append(f.ids, p)
		}
	case *archimatev1.CreateRelationshipRequest:
		f = footprint{ids: []string{req.GetSourceId(), req.GetTargetId()}, relIDs: []string{req.GetId()}, lock: lockShare}
	case *archimatev1.UpdateElementRequest:
		f = footprint{ids: []string{req.GetId()}, lock: lockUpdate}
		if req.Name != nil {
			f.sameModel = []string{domain.NameKey(req.GetName())}
		}
		if withState {
			f.attached = []string{req.GetId()}
		}
	case *archimatev1.DeleteElementRequest:
		f = footprint{ids: []string{req.GetId()}, attached: []string{req.GetId()}, parts: []string{req.GetId()}, lock: lockDelete}
	case *archimatev1.CreateCapabilityRequest:
		f = footprint{ids: []string{req.GetId()}, model: req.GetModelId(), names: []string{domain.NameKey(req.GetName())}, lock: lockShare}
	case *archimatev1.CreateCapabilityStructureRequest:
		f = footprint{model: req.GetModelId(), lock: lockShare}
		f.ids = append(f.ids, req.GetId())
		for i := range req.GetValueStreams() {
			f.ids = append(f.ids, fmt.Sprintf("%s-vs-%d", req.GetId(), i+1))
		}
		for i := range req.GetSubCapabilities() {
			f.ids = append(f.ids, fmt.Sprintf("%s-sub-%d", req.GetId(), i+1))
		}
		for _, n := range append(append([]string{req.GetName()}, req.GetValueStreams()...), req.GetSubCapabilities()...) {
			f.names = append(f.names, domain.NameKey(n))
		}
		for _, id := range f.ids {
			f.relIDs = append(f.relIDs, id+"-rel")
		}
	case *archimatev1.CreateElementsRequest:
		// A validation of the whole batch; each item is written with its
		// own footprint.
		f = footprint{model: req.GetModelId()}
		for i := range req.GetElements() {
			one := footprintOf(domain.ItemRequest(req, i), false)
			f.ids = append(f.ids, one.ids...)
			f.names = append(f.names, one.names...)
		}
	case *archimatev1.AddComponentToCapabilityRequest:
		f = footprint{model: req.GetModelId(), lock: lockShare}
		f.ids = append(f.ids, req.GetId())
		for i := range req.GetServices() {
			f.ids = append(f.ids, fmt.Sprintf("%s-svc-%d", req.GetId(), i+1))
		}
		for _, id := range f.ids {
			f.relIDs = append(f.relIDs, id+"-rel")
		}
		f.ids = append(f.ids, req.GetCapabilityId())
		for _, n := range append([]string{req.GetComponentName()}, req.GetServices()...) {
			f.names = append(f.names, domain.NameKey(n))
		}
	}
	return f
}

// load reads the footprint's rows (locking the elements when f.lock says
// so): the elements first, then the relationships, so a delete sees every
// relationship committed before it locked the element.
func (r *Repository) load(ctx context.Context, q querier, tenant string, f footprint) (domain.Rows, error) {
	query, args := r.elementsQuery(tenant, f)
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return domain.Rows{}, err
	}
	out, err := scanElements(rows)
	if err != nil {
		return out, err
	}
	return r.loadRelationships(ctx, q, tenant, f, out)
}

// elementsQuery is the query, and its arguments, that reads (and locks
// when f.lock says so) the footprint's elements.
func (r *Repository) elementsQuery(tenant string, f footprint) (string, []any) {
	query, ok := r.sql.loadElementsLocked[f.lock]
	if !ok {
		query = strings.Replace(r.sql.loadElements, lockMarker, f.lock, 1)
	}
	return query, []any{tenant, nonNil(f.ids), f.model, nonNil(f.names), nonNil(f.sameModel), nonNil(f.norms), nonNil(f.parts)}
}

// shapedRead is elementsQuery making only the lookups f needs
// (elementsSQL), as a keyed write's read does (sqlText.readsReserving,
// which adds the key's lock): the same rows, read and locked.
func (r *Repository) shapedRead(tenant string, f footprint) (string, []any) {
	shape := shapeOf(f)
	return r.sql.reads[readKey{shape, f.lock}], elementsArgsOf(tenant, f, shape)
}

// scanElements reads the rows of elementsQuery, and closes them.
func scanElements(rows pgx.Rows) (domain.Rows, error) {
	out := domain.Rows{Born: map[string]uint64{}}
	defer rows.Close()
	for rows.Next() {
		var (
			e          archimatev1.Element
			typ, layer string
			born       int64
			props      map[string]string
		)
		if err := rows.Scan(&e.Id, &e.ModelId, &typ, &layer, &e.Name, &e.Description, &e.ParentId, &e.Version, &born, &props); err != nil {
			return out, err
		}
		e.Type = archimatev1.ElementType(archimatev1.ElementType_value[typ])
		e.Layer = archimatev1.Layer(archimatev1.Layer_value[layer])
		if len(props) > 0 {
			e.Properties = props
		}
		out.Elements = append(out.Elements, &e)
		out.Born[e.GetId()] = uint64(born)
	}
	return out, rows.Err()
}

// loadRelationships adds the footprint's relationships to out, read after
// its elements.
func (r *Repository) loadRelationships(ctx context.Context, q querier, tenant string, f footprint, out domain.Rows) (domain.Rows, error) {
	if len(f.relIDs) == 0 && len(f.attached) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, r.sql.loadRelationships, tenant, nonNil(f.relIDs), nonNil(f.attached))
	if err != nil {
		return out, err
	}
	out.Relationships, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (*archimatev1.Relationship, error) {
		var rel archimatev1.Relationship
		var typ string
		err := row.Scan(&rel.Id, &typ, &rel.SourceId, &rel.TargetId, &rel.Name, &rel.Description)
		rel.Type = archimatev1.RelationshipType(archimatev1.RelationshipType_value[typ])
		return &rel, err
	})
	return out, err
}

// withAllElements adds the tenant's other elements (id, model, type and
// name: what a not-found answer's suggestions read) to rows.
func (r *Repository) withAllElements(ctx context.Context, q querier, tenant string, rows domain.Rows) (domain.Rows, error) {
	have := map[string]bool{}
	for _, e := range rows.Elements {
		have[e.GetId()] = true
	}
	res, err := q.Query(ctx, r.sql.allElements, tenant)
	if err != nil {
		return rows, err
	}
	all, err := pgx.CollectRows(res, func(row pgx.CollectableRow) (*archimatev1.Element, error) {
		var e archimatev1.Element
		var typ string
		err := row.Scan(&e.Id, &e.ModelId, &typ, &e.Name)
		e.Type = archimatev1.ElementType(archimatev1.ElementType_value[typ])
		return &e, err
	})
	if err != nil {
		return rows, err
	}
	out := domain.Rows{Elements: slices.Clone(rows.Elements), Born: maps.Clone(rows.Born), Relationships: rows.Relationships}
	for _, e := range all {
		if !have[e.GetId()] {
			out.Elements = append(out.Elements, e)
		}
	}
	return out, nil
}

// queueChanges queues the statements that turn before into after: only
// the rows that differ are written.
func (r *Repository) queueChanges(b *pgx.Batch, tenant string, before, after domain.Rows) {
	oldEls := map[string]*archimatev1.Element{}
	for _, e := range before.Elements {
		oldEls[e.GetId()] = e
	}
	oldRels := map[string]*archimatev1.Relationship{}
	for _, rel := range before.Relationships {
		oldRels[rel.GetId()] = rel
	}
	var newEls []*archimatev1.Element
	var newRels []*archimatev1.Relationship
	keptEls, keptRels := map[string]bool{}, map[string]bool{}
	for _, e := range after.Elements {
		keptEls[e.GetId()] = true
		old, ok := oldEls[e.GetId()]
		switch {
		case !ok:
			newEls = append(newEls, e)
		case !proto.Equal(old, e):
			r.queueUpdate(b, tenant, old, e)
		}
	}
	for _, rel := range after.Relationships {
		keptRels[rel.GetId()] = true
		if old, ok := oldRels[rel.GetId()]; !ok {
			newRels = append(newRels, rel)
		} else if !proto.Equal(old, rel) {
			// The domain never changes a relationship; replace it if it did.
			b.Queue(r.sql.deleteRelationship, tenant, rel.GetId())
			newRels = append(newRels, rel)
		}
	}
	var goneRels, goneEls []string
	for id := range oldRels {
		if !keptRels[id] {
			goneRels = append(goneRels, id)
		}
	}
	for id := range oldEls {
		if !keptEls[id] {
			goneEls = append(goneEls, id)
		}
	}
	slices.Sort(goneRels)
	for _, id := range goneRels {
		b.Queue(r.sql.deleteRelationship, tenant, id)
	}
	slices.Sort(goneEls)
	for _, id := range goneEls {
		b.Queue(r.sql.deleteElement, tenant, id)
	}
	r.queueInsert(b, tenant, newEls, nil, newRels)
}

// queueUpdate rewrites one element's row and the properties that changed.
func (r *Repository) queueUpdate(b *pgx.Batch, tenant string, old, e *archimatev1.Element) {
	b.Queue(r.sql.updateElement, tenant, e.GetId(), e.GetModelId(), e.GetType().String(), e.GetLayer().String(),
		e.GetName(), domain.NameKey(e.GetName()), suggest.Normalize(e.GetName()), e.GetDescription(), e.GetParentId(), e.GetVersion())
	var ids, keys, vals, gone []string
	for _, k := range slices.Sorted(maps.Keys(e.GetProperties())) {
		if v, ok := old.GetProperties()[k]; !ok || v != e.GetProperties()[k] {
			ids, keys, vals = append(ids, e.GetId()), append(keys, k), append(vals, e.GetProperties()[k])
		}
	}
	for k := range old.GetProperties() {
		if _, ok := e.GetProperties()[k]; !ok {
			gone = append(gone, k)
		}
	}
	if len(keys) > 0 {
		b.Queue(r.sql.insertProperties, tenant, ids, keys, vals)
	}
	if len(gone) > 0 {
		b.Queue(r.sql.deleteProperties, tenant, e.GetId(), gone)
	}
}

// queueInsert inserts elements (born numbers from born, else from the
// sequence), their properties and relationships, one statement each (one
// element by insertElement).
func (r *Repository) queueInsert(b *pgx.Batch, tenant string, els []*archimatev1.Element, born map[string]uint64, rels []*archimatev1.Relationship) {
	if len(els) == 1 {
		e := els[0]
		b.Queue(r.sql.insertElement, tenant, e.GetId(), e.GetModelId(), e.GetType().String(), e.GetLayer().String(),
			e.GetName(), domain.NameKey(e.GetName()), suggest.Normalize(e.GetName()), e.GetDescription(), e.GetParentId(), e.GetVersion(), int64(born[e.GetId()]))
		r.queueProperties(b, tenant, els)
	} else if len(els) > 0 {
		n := len(els)
		id, model, typ, layer, name, key, norm, desc, parent := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		version, births := make([]int32, n), make([]int64, n)
		for i, e := range els {
			id[i], model[i], typ[i], layer[i] = e.GetId(), e.GetModelId(), e.GetType().String(), e.GetLayer().String()
			name[i], key[i], norm[i] = e.GetName(), domain.NameKey(e.GetName()), suggest.Normalize(e.GetName())
			desc[i], parent[i], version[i], births[i] = e.GetDescription(), e.GetParentId(), e.GetVersion(), int64(born[e.GetId()])
		}
		b.Queue(r.sql.insertElements, tenant, id, model, typ, layer, name, key, norm, desc, parent, version, births)
		r.queueProperties(b, tenant, els)
	}
	if len(rels) > 0 {
		n := len(rels)
		id, typ, src, dst, name, desc := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i, rel := range rels {
			id[i], typ[i], src[i], dst[i], name[i], desc[i] = rel.GetId(), rel.GetType().String(), rel.GetSourceId(), rel.GetTargetId(), rel.GetName(), rel.GetDescription()
		}
		b.Queue(r.sql.insertRelationships, tenant, id, typ, src, dst, name, desc)
	}
}

// queueProperties inserts the properties of els, one statement for all.
func (r *Repository) queueProperties(b *pgx.Batch, tenant string, els []*archimatev1.Element) {
	var pid, pkey, pval []string
	for _, e := range els {
		for _, k := range slices.Sorted(maps.Keys(e.GetProperties())) {
			pid, pkey, pval = append(pid, e.GetId()), append(pkey, k), append(pval, e.GetProperties()[k])
		}
	}
	if len(pid) > 0 {
		b.Queue(r.sql.insertProperties, tenant, pid, pkey, pval)
	}
}

// shapeOf is the shape of f's read.
func shapeOf(f footprint) readShape {
	var s readShape
	for _, l := range []struct {
		values []string
		bit    readShape
	}{{f.names, readNames}, {f.norms, readNorms}, {f.sameModel, readRenames}, {f.parts, readParts}} {
		if len(l.values) > 0 {
			s |= l.bit
		}
	}
	return s
}

// elementsArgsOf are the arguments of f's read by shape (elementsSQL), the
// ids made distinct.
func elementsArgsOf(tenant string, f footprint, shape readShape) []any {
	args := make([]any, 2, elementsArgs)
	args[0], args[1] = tenant, distinct(f.ids)
	if shape&(readNames|readNorms) != 0 {
		args = append(args, f.model)
	}
	for _, l := range []struct {
		values []string
		bit    readShape
	}{{f.names, readNames}, {f.sameModel, readRenames}, {f.norms, readNorms}, {f.parts, readParts}} {
		if shape&l.bit != 0 {
			args = append(args, l.values)
		}
	}
	return args
}

// distinct is ids without repeats, in their order (ids itself when it has
// none); never nil.
func distinct(ids []string) []string {
	for i := 1; i < len(ids); i++ {
		if slices.Contains(ids[:i], ids[i]) {
			out := slices.Clone(ids[:i])
			for _, id := range ids[i+1:] {
				if !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
			return out
		}
	}
	return nonNil(ids)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

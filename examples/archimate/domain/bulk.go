package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// A batch import (createElements) writes its items one by one, in order,
// each on its own: an item that fails leaves the others written. An item's
// client_request_id is its own idempotency key (seed §7.10, "Batch imports:
// per-item key"), scoped like a call's key to the tenant and principal: a
// retried batch answers the items whose key was written as replays and
// writes only the rest. Here the keys live as long as the repository; the
// PostgreSQL domain keeps them in the idempotency table, in the item's
// transaction.

// Codes of an item's key, as the runtime answers a call's key, and of the
// failures that are not the item's (they stop the batch).
const (
	codeKeyReused   = "IDEMPOTENCY_KEY_REUSED"
	codeInProgress  = "IDEMPOTENCY_IN_PROGRESS"
	codeInternal    = "INTERNAL"
	codeUnavailable = "UNAVAILABLE"
)

func (r *Repository) itemKeys() *itemKeys {
	r.items.mu.Lock()
	if r.items.keys == nil {
		r.items.keys = map[string]itemRecord{}
	}
	r.items.mu.Unlock()
	return &r.items
}

// ItemTool is the tool batch items' keys are stored under, apart from the
// keys of whole calls.
const ItemTool = "createElements.item"

// ItemKey is the store key of an item's client_request_id, scoped like a
// call's key to the tenant and principal.
func ItemKey(meta *archimatev1.MessageMeta, key string) idempotency.Key {
	return idempotency.ScopedKey(meta.GetTenantId(), meta.GetPrincipalId(), ItemTool, key)
}

// ItemScope is ItemKey as one string, the in-memory key.
func ItemScope(meta *archimatev1.MessageMeta, key string) string {
	k := ItemKey(meta, key)
	return k.Tenant + "\x00" + k.Key
}

// ItemRequest is item i of a batch as the createElement request it is
// written as: the server filled the item's id (from its key) and its layer
// (from its type), and its envelope is the batch's with the item's key.
func ItemRequest(req *archimatev1.CreateElementsRequest, i int) *archimatev1.CreateElementRequest {
	it := req.GetElements()[i]
	meta := proto.Clone(req.GetMeta()).(*archimatev1.MessageMeta)
	if meta == nil {
		meta = &archimatev1.MessageMeta{}
	}
	meta.ClientRequestId = it.GetClientRequestId()
	return &archimatev1.CreateElementRequest{
		Meta: meta, Id: it.GetId(), ModelId: req.GetModelId(),
		Type: it.GetType(), Layer: it.GetLayer(), Name: it.GetName(), Description: it.GetDescription(),
		Properties: it.GetProperties(), ParentId: it.GetParentId(),
	}
}

// ItemFingerprint identifies what item i asks for (the model and the
// item, its key and the server's fills left out): the same key with another
// item is a reused key.
func ItemFingerprint(req *archimatev1.CreateElementsRequest, i int) string {
	it := proto.Clone(req.GetElements()[i]).(*archimatev1.ElementItem)
	it.ClientRequestId, it.Id, it.Layer = "", "", archimatev1.Layer_LAYER_UNSPECIFIED
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(it)
	sum := sha256.Sum256(append([]byte(req.GetModelId()+"\x00"), b...))
	return hex.EncodeToString(sum[:])
}

// Written is the result of item i written as element e.
func Written(req *archimatev1.CreateElementsRequest, i int, e *archimatev1.Element) *archimatev1.ElementResult {
	return &archimatev1.ElementResult{Index: int32(i), ClientRequestId: req.GetElements()[i].GetClientRequestId(), Success: true, Element: e}
}

// Replayed is the answer to item i whose key was already stored with
// fingerprint stored, first written at, with the result first answered
// (nil while that item is still being written).
func Replayed(req *archimatev1.CreateElementsRequest, i int, fingerprint, stored string, first *archimatev1.ElementResult, at time.Time) *archimatev1.ElementResult {
	key := req.GetElements()[i].GetClientRequestId()
	switch {
	case stored != fingerprint:
		return failed(req, i, &runtime.ErrorEntry{Code: codeKeyReused, Field: "client_request_id",
			Message:     fmt.Sprintf("client_request_id '%s' was used for a different item", clip(key)),
			Suggestions: &runtime.Suggestions{Hint: "Give each item its own client_request_id; reuse a key only to retry the same item"}})
	case first == nil:
		return failed(req, i, &runtime.ErrorEntry{Code: codeInProgress, Field: "client_request_id",
			Message:     fmt.Sprintf("the item with client_request_id '%s' is being written by another call", clip(key)),
			Suggestions: &runtime.Suggestions{Hint: "Retry the batch in a few seconds: the item is then answered as written"}})
	}
	out := proto.Clone(first).(*archimatev1.ElementResult)
	out.Index, out.ClientRequestId = int32(i), key
	out.IdempotentReplay = true
	out.OriginalRequestTime = at.UTC().Format(time.RFC3339)
	return out
}

// Failed is the answer to item i that err refused, or false when err is
// not the domain's answer to the item (a store outage, a cancelled call):
// the batch then stops with err, and a retry replays the items written.
func Failed(req *archimatev1.CreateElementsRequest, i int, err error) (*archimatev1.ElementResult, bool) {
	var e *runtime.ErrorEntry
	if errors.As(err, &e) && e != nil {
		if e.Code == codeInternal || e.Code == codeUnavailable {
			return nil, false
		}
		return failed(req, i, e), true
	}
	code, ok := itemCodes[status.Code(err)]
	if !ok {
		return nil, false
	}
	return failed(req, i, &runtime.ErrorEntry{Code: code, Message: status.Convert(err).Message()}), true
}

// itemCodes are the status codes a domain answers an item with, in the
// runtime's words for them.
var itemCodes = map[codes.Code]string{
	codes.AlreadyExists:      runtime.CodeAlreadyExists,
	codes.NotFound:           runtime.CodeNotFound,
	codes.FailedPrecondition: "CONFLICT",
	codes.InvalidArgument:    runtime.CodeValidation,
}

func failed(req *archimatev1.CreateElementsRequest, i int, e *runtime.ErrorEntry) *archimatev1.ElementResult {
	ie := &archimatev1.ItemError{Code: e.Code, Message: e.Message, Field: e.Field}
	if s := suggestionsOf(e.Suggestions); s != nil {
		ie.Suggestions = s
	}
	return &archimatev1.ElementResult{Index: int32(i), ClientRequestId: req.GetElements()[i].GetClientRequestId(), Error: ie}
}

// suggestionsOf is the error's suggestions as the envelope renders them.
func suggestionsOf(s *runtime.Suggestions) *structpb.Struct {
	if s == nil {
		return nil
	}
	m := map[string]any{}
	for k, v := range s.Extra {
		m[k] = v
	}
	if len(s.DidYouMean) > 0 {
		m["did_you_mean"] = s.DidYouMean
	}
	if len(s.ValidValues) > 0 {
		m["valid_values"] = s.ValidValues
	}
	if s.Hint != "" {
		m["hint"] = s.Hint
	}
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	out := &structpb.Struct{}
	if protojson.Unmarshal(b, out) != nil {
		return nil
	}
	return out
}

// ItemTime is when the batch's items are written: the envelope's
// occurred_at, stamped by the server for the call.
func ItemTime(req *archimatev1.CreateElementsRequest) time.Time {
	if at := req.GetMeta().GetOccurredAt(); at != nil {
		return at.AsTime()
	}
	return time.Now()
}

// Tally is the batch's answer: its results and their counts.
func Tally(results []*archimatev1.ElementResult) *archimatev1.CreateElementsResponse {
	resp := &archimatev1.CreateElementsResponse{Results: results}
	for _, r := range results {
		switch {
		case !r.GetSuccess():
			resp.Failed++
		case r.GetIdempotentReplay():
			resp.Replayed++
		default:
			resp.Created++
		}
	}
	return resp
}

// CreateElements writes a batch of elements, item by item.
func (r *Repository) CreateElements(ctx context.Context, req *archimatev1.CreateElementsRequest) (*archimatev1.CreateElementsResponse, error) {
	results := make([]*archimatev1.ElementResult, 0, len(req.GetElements()))
	for i := range req.GetElements() {
		res, err := r.createItem(ctx, req, i)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return Tally(results), nil
}

// createItem writes item i, or replays it from its key.
func (r *Repository) createItem(ctx context.Context, req *archimatev1.CreateElementsRequest, i int) (*archimatev1.ElementResult, error) {
	key := req.GetElements()[i].GetClientRequestId()
	fp := ItemFingerprint(req, i)
	ks := r.itemKeys()
	if key != "" {
		ks.mu.Lock()
		defer ks.mu.Unlock()
		if rec, ok := ks.keys[ItemScope(req.GetMeta(), key)]; ok {
			return Replayed(req, i, fp, rec.fingerprint, rec.result, rec.at), nil
		}
	}
	resp, err := r.CreateElement(ctx, ItemRequest(req, i))
	if err != nil {
		res, ok := Failed(req, i, err)
		if !ok {
			return nil, err
		}
		return res, nil
	}
	res := Written(req, i, resp.GetElement())
	if key != "" {
		ks.keys[ItemScope(req.GetMeta(), key)] = itemRecord{fingerprint: fp, result: proto.Clone(res).(*archimatev1.ElementResult), at: ItemTime(req)}
	}
	return res, nil
}

// RememberItem stores a written item's key, as a store that keeps keys
// elsewhere read it, so a scratch copy (validateWrite, dry_run) answers a
// retried batch as the write would.
func (r *Repository) RememberItem(scope, fingerprint string, result *archimatev1.ElementResult, at time.Time) {
	ks := r.itemKeys()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.keys[scope] = itemRecord{fingerprint: fingerprint, result: result, at: at}
}

// copyItemsTo gives scratch the tenant's item keys.
func (r *Repository) copyItemsTo(scratch *Repository, tenant string) {
	ks := r.itemKeys()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for k, rec := range ks.keys {
		if strings.HasPrefix(k, tenant+"\x00") {
			scratch.RememberItem(k, rec.fingerprint, rec.result, rec.at)
		}
	}
}

// BatchErrors are the items of a batch that would fail, as a validation
// answers them: each on the item's field (elements[i].name).
func BatchErrors(resp *archimatev1.CreateElementsResponse) error {
	var es runtime.Errors
	for _, res := range resp.GetResults() {
		if res.GetSuccess() {
			continue
		}
		e := res.GetError()
		field := fmt.Sprintf("elements[%d]", res.GetIndex())
		if e.GetField() != "" {
			field += "." + e.GetField()
		}
		entry := &runtime.ErrorEntry{Code: e.GetCode(), Message: e.GetMessage(), Field: field}
		if s := e.GetSuggestions(); s != nil {
			entry.Details = map[string]any{"suggestions": s.AsMap()}
		}
		es = append(es, entry)
	}
	if len(es) == 0 {
		return nil
	}
	return es
}

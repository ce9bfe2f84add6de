package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// typeRegistry is a domain where each tenant registers its own entity
// types while the server runs; tags are fixed per tenant.
type typeRegistry struct {
	mu    sync.Mutex
	types map[string][]runtime.VocabularyValue
	tags  map[string][]runtime.VocabularyValue
	asked map[string]int // resolver calls per tenant
}

func newTypeRegistry() *typeRegistry {
	return &typeRegistry{
		types: map[string][]runtime.VocabularyValue{
			"acme": {
				{Value: "person", Aliases: []string{"human", "individual"}, Description: "A natural person"},
				{Value: "company", Aliases: []string{"organisation"}},
			},
			"globex": {{Value: "project"}},
		},
		tags: map[string][]runtime.VocabularyValue{
			"acme": {{Value: "urgent"}, {Value: "vip"}},
		},
		asked: map[string]int{},
	}
}

func (tr *typeRegistry) register(tenant string, v runtime.VocabularyValue) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.types[tenant] = append(tr.types[tenant], v)
}

func (tr *typeRegistry) entityTypes(_ context.Context, tenant string) ([]runtime.VocabularyValue, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.asked[tenant]++
	return append([]runtime.VocabularyValue(nil), tr.types[tenant]...), nil
}

func (tr *typeRegistry) tagValues(_ context.Context, tenant string) ([]runtime.VocabularyValue, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.tags[tenant], nil
}

func (tr *typeRegistry) calls(tenant string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.asked[tenant]
}

// storeDoc is the document generated for a store tool whose entity_type
// takes the entity_type vocabulary (listed by list_entity_types) and whose
// tags take the tag vocabulary.
const storeDoc = `{"source":"t/v1/t.proto","services":[{"name":"t.v1.T","schema_tool":"get_write_schema","tools":[{"name":"store","method":"t.v1.T.Store",
  "description":"Store an entity.","kind":"CREATE","classification":"SAFE_CREATE","confirmation":"DIRECT","hints":{"idempotent":false},
  "input_schema":{"type":"object","properties":{
    "entity_type":{"type":"string","description":"A value of the live vocabulary entity_type (or one of its aliases); list_entity_types and get_write_schema list the values."},
    "tags":{"type":"array","items":{"type":"string"},"description":"A value of the live vocabulary tag (or one of its aliases); get_write_schema lists the values."}},
    "required":["entity_type"],"additionalProperties":false},
  "output_schema":{"type":"object"},"required_fields":["entity_type"],"optional_fields":["tags"],
  "vocabularies":[{"field":"entity_type","vocabulary":"entity_type"},{"field":"tags","vocabulary":"tag"}]}],
  "vocabulary_tools":[{"tool":"list_entity_types","vocabulary":"entity_type","description":"List the entity type values the caller's tenant can use, with their aliases."}]}]}`

// storeService binds the store tool the way generated code does: its
// decoder reads both fields with Decoder.Vocabulary.
func storeService() *impl.Service {
	return &impl.Service{Name: "t.v1.T", Doc: []byte(storeDoc), Tools: []*impl.Tool{{
		Name:       "store",
		NewRequest: func() proto.Message { return &structpb.Struct{Fields: map[string]*structpb.Value{}} },
		Decode: func(d *impl.Decoder, obj *impl.Object, req proto.Message) {
			m := req.(*structpb.Struct)
			d.Known(obj, []string{"entity_type", "tags"})
			if v := obj.Get("entity_type"); v != nil && v.Kind != impl.KindNull {
				if x, ok := d.Vocabulary(v, "entity_type", "entity_type"); ok {
					m.Fields["entity_type"] = structpb.NewStringValue(x)
				}
			} else {
				d.Missing("entity_type")
			}
			if v := obj.Get("tags"); v != nil && v.Kind != impl.KindNull {
				if arr, ok := d.Array(v, "tags"); ok {
					d.Enter("tags")
					var tags []any
					for i, ev := range arr {
						d.EnterIndex(i)
						if x, ok := d.Vocabulary(ev, "", "tag"); ok {
							tags = append(tags, x)
						}
						d.Leave()
					}
					d.Leave()
					l, _ := structpb.NewList(tags)
					m.Fields["tags"] = structpb.NewListValue(l)
				}
			}
		},
		Enrich: func(*impl.Call, proto.Message) error { return nil },
		Invoke: func(_ context.Context, req proto.Message) (proto.Message, error) {
			return &structpb.Struct{Fields: map[string]*structpb.Value{"stored": structpb.NewStructValue(req.(*structpb.Struct))}}, nil
		},
	}}}
}

// storeServer serves the store tool to two tenants, acme (client "acme")
// and globex (client "globex").
func storeServer(t *testing.T, opts ...runtime.Option) (acme, globex *mcp.ClientSession) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	opts = append(opts, runtime.WithRequestContextFunc(mcptest.ContextByClientName(map[string]runtime.RequestContext{
		"acme":   {TenantID: "acme", PrincipalID: "ada"},
		"globex": {TenantID: "globex", PrincipalID: "hank"},
	})))
	if err := gosdk.Register(server, storeService(), opts...); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, server, mcptest.Options{ClientName: "acme"}), mcptest.Connect(t, server, mcptest.Options{ClientName: "globex"})
}

func call(t *testing.T, cs *mcp.ClientSession, tool, args string, isError bool, want string) {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	if r.IsError != isError || r.Text != want {
		t.Fatalf("%s %s: got isError=%v\n%s\nwant\n%s", tool, args, r.IsError, r.Text, want)
	}
}

// A value the tenant registers while the server runs is accepted and
// listed as soon as the domain invalidates the tenant's cached values,
// without registering the tools again.
func TestVocabularyValueRegisteredAtRuntimeIsAcceptedAndListed(t *testing.T) {
	tr := newTypeRegistry()
	types := runtime.NewVocabulary("entity_type", tr.entityTypes)
	acme, _ := storeServer(t, runtime.WithVocabulary(types), runtime.WithVocabulary(runtime.NewVocabulary("tag", tr.tagValues)))

	call(t, acme, "store", `{"entity_type":"invoice"}`, true,
		`{"success":false,"error":{"code":"INVALID_ENUM_VALUE","message":"invalid value \"inv…\" for entity_type","field":"entity_type",`+
			`"suggestions":{"valid_values":["person","company"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}},`+
			`"errors":[{"code":"INVALID_ENUM_VALUE","message":"invalid value \"inv…\" for entity_type","field":"entity_type",`+
			`"suggestions":{"valid_values":["person","company"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}}]}`)

	tr.register("acme", runtime.VocabularyValue{Value: "invoice", Aliases: []string{"bill"}, Description: "A bill sent to a customer"})
	types.Invalidate("acme")

	call(t, acme, "store", `{"entity_type":"invoice"}`, false,
		`{"success":true,"stored":{"entity_type":"invoice"},"suggestions":[],"warnings":[]}`)
	call(t, acme, "store", `{"entity_type":"Bill"}`, false,
		`{"success":true,"stored":{"entity_type":"invoice"},"suggestions":[],"warnings":[]}`)
	call(t, acme, "list_entity_types", `{}`, false,
		`{"vocabulary":"entity_type","values":[`+
			`{"value":"person","aliases":["human","individual"],"description":"A natural person"},`+
			`{"value":"company","aliases":["organisation"]},`+
			`{"value":"invoice","aliases":["bill"],"description":"A bill sent to a customer"}]}`)
	r := mcptest.Call(t, acme, "get_write_schema", `{"operation":"store"}`)
	got, _ := r.Body["vocabularies"].([]any)
	want := []any{
		map[string]any{"field": "entity_type", "vocabulary": "entity_type", "values": []any{
			map[string]any{"value": "person", "aliases": []any{"human", "individual"}, "description": "A natural person"},
			map[string]any{"value": "company", "aliases": []any{"organisation"}},
			map[string]any{"value": "invoice", "aliases": []any{"bill"}, "description": "A bill sent to a customer"},
		}},
		map[string]any{"field": "tags", "vocabulary": "tag", "values": []any{
			map[string]any{"value": "urgent"}, map[string]any{"value": "vip"},
		}},
	}
	if r.IsError || !reflect.DeepEqual(got, want) {
		t.Fatalf("get_write_schema vocabularies = %v (isError %v), want %v", got, r.IsError, want)
	}
}

// Aliases and spellings that differ only in case or separators become the
// canonical value before the handler sees the request.
func TestVocabularyAliasBecomesTheCanonicalValue(t *testing.T) {
	tr := newTypeRegistry()
	acme, _ := storeServer(t, runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes)),
		runtime.WithVocabulary(runtime.NewVocabulary("tag", tr.tagValues)))
	for args, want := range map[string]string{
		`{"entity_type":"human"}`:                  `{"success":true,"stored":{"entity_type":"person"},"suggestions":[],"warnings":[]}`,
		`{"entity_type":"INDIVIDUAL"}`:             `{"success":true,"stored":{"entity_type":"person"},"suggestions":[],"warnings":[]}`,
		`{"entity_type":"Company"}`:                `{"success":true,"stored":{"entity_type":"company"},"suggestions":[],"warnings":[]}`,
		`{"entity_type":"company","tags":["VIP"]}`: `{"success":true,"stored":{"entity_type":"company","tags":["vip"]},"suggestions":[],"warnings":[]}`,
	} {
		call(t, acme, "store", args, false, want)
	}
}

// Typos get a did-you-mean to a live value, every problem at once, each
// with its own path.
func TestVocabularyTypoGetsDidYouMeanForEveryField(t *testing.T) {
	tr := newTypeRegistry()
	acme, _ := storeServer(t, runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes)),
		runtime.WithVocabulary(runtime.NewVocabulary("tag", tr.tagValues)))
	call(t, acme, "store", `{"entity_type":"compnay","tags":["vip","urgnet"]}`, true,
		`{"success":false,"error":{"code":"INVALID_ENUM_VALUE","message":"invalid value \"com…\" for entity_type; did you mean \"company\"?","field":"entity_type",`+
			`"suggestions":{"did_you_mean":["company"],"valid_values":["person","company"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}},`+
			`"errors":[{"code":"INVALID_ENUM_VALUE","message":"invalid value \"com…\" for entity_type; did you mean \"company\"?","field":"entity_type",`+
			`"suggestions":{"did_you_mean":["company"],"valid_values":["person","company"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}},`+
			`{"code":"INVALID_ENUM_VALUE","message":"invalid value \"urg…\" for tags[1]; did you mean \"urgent\"?","field":"tags[1]",`+
			`"suggestions":{"did_you_mean":["urgent"],"valid_values":["urgent","vip"],"hint":"the tag values of this tenant; get_write_schema lists them"}}]}`)
}

// One tenant's values are neither accepted nor listed for another.
func TestVocabularyValuesStayWithTheirTenant(t *testing.T) {
	tr := newTypeRegistry()
	types := runtime.NewVocabulary("entity_type", tr.entityTypes)
	acme, globex := storeServer(t, runtime.WithVocabulary(types), runtime.WithVocabulary(runtime.NewVocabulary("tag", tr.tagValues)))
	tr.register("acme", runtime.VocabularyValue{Value: "invoice"})
	types.Invalidate("acme")
	call(t, acme, "store", `{"entity_type":"invoice"}`, false,
		`{"success":true,"stored":{"entity_type":"invoice"},"suggestions":[],"warnings":[]}`)

	call(t, globex, "store", `{"entity_type":"invoice"}`, true,
		`{"success":false,"error":{"code":"INVALID_ENUM_VALUE","message":"invalid value \"inv…\" for entity_type","field":"entity_type",`+
			`"suggestions":{"valid_values":["project"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}},`+
			`"errors":[{"code":"INVALID_ENUM_VALUE","message":"invalid value \"inv…\" for entity_type","field":"entity_type",`+
			`"suggestions":{"valid_values":["project"],"hint":"the entity_type values of this tenant; list_entity_types lists them"}}]}`)
	call(t, globex, "list_entity_types", `{}`, false, `{"vocabulary":"entity_type","values":[{"value":"project"}]}`)
	call(t, globex, "store", `{"entity_type":"project","tags":["vip"]}`, true,
		`{"success":false,"error":{"code":"INVALID_ENUM_VALUE","message":"invalid value \"v…\" for tags[0]","field":"tags[0]",`+
			`"suggestions":{"hint":"this tenant has no tag values yet"}},`+
			`"errors":[{"code":"INVALID_ENUM_VALUE","message":"invalid value \"v…\" for tags[0]","field":"tags[0]",`+
			`"suggestions":{"hint":"this tenant has no tag values yet"}}]}`)
	r := mcptest.Call(t, globex, "get_write_schema", `{"operation":"store"}`)
	got, _ := r.Body["vocabularies"].([]any)
	want := []any{
		map[string]any{"field": "entity_type", "vocabulary": "entity_type", "values": []any{map[string]any{"value": "project"}}},
		map[string]any{"field": "tags", "vocabulary": "tag", "values": []any{}},
	}
	if r.IsError || !reflect.DeepEqual(got, want) {
		t.Fatalf("get_write_schema vocabularies = %v (isError %v), want %v", got, r.IsError, want)
	}
}

// A resolver that fails answers INTERNAL with a trace id and the field,
// and the failure is not cached.
func TestVocabularyResolverFailureIsInternal(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	types := runtime.NewVocabulary("entity_type", func(context.Context, string) ([]runtime.VocabularyValue, error) {
		if fail.Load() {
			return nil, errors.New("type table unavailable")
		}
		return []runtime.VocabularyValue{{Value: "person"}}, nil
	})
	tags := runtime.NewVocabulary("tag", func(context.Context, string) ([]runtime.VocabularyValue, error) { return nil, nil })
	acme, _ := storeServer(t, runtime.WithVocabulary(types), runtime.WithVocabulary(tags), runtime.WithLogger(slog.New(slog.DiscardHandler)))
	r := mcptest.Call(t, acme, "store", `{"entity_type":"person"}`)
	e, _ := r.Body["error"].(map[string]any)
	if !r.IsError || e["code"] != "INTERNAL" || e["message"] != "could not resolve entity_type" || e["field"] != "entity_type" || e["trace_id"] == "" {
		t.Fatalf("got %s", r.Text)
	}
	if strings.Contains(r.Text, "unavailable") {
		t.Fatalf("the resolver's own error reached the agent: %s", r.Text)
	}
	fail.Store(false)
	call(t, acme, "store", `{"entity_type":"person"}`, false,
		`{"success":true,"stored":{"entity_type":"person"},"suggestions":[],"warnings":[]}`)
}

func TestRegisterFailsWithoutAVocabularyTheToolsNeed(t *testing.T) {
	tr := newTypeRegistry()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	for _, tc := range []struct {
		name string
		opts []runtime.Option
		want string
	}{{
		name: "none served",
		want: `runtime: service t.v1.T: tool "store": field "entity_type" takes values of the vocabulary "entity_type", which no option serves; pass runtime.WithVocabulary(runtime.NewVocabulary("entity_type", fn)) to Register`,
	}, {
		name: "one of two served",
		opts: []runtime.Option{runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes))},
		want: `runtime: service t.v1.T: tool "store": field "tags" takes values of the vocabulary "tag", which no option serves; pass runtime.WithVocabulary(runtime.NewVocabulary("tag", fn)) to Register`,
	}, {
		name: "nil",
		opts: []runtime.Option{runtime.WithVocabulary(nil)},
		want: `runtime: service t.v1.T: WithVocabulary(nil)`,
	}, {
		name: "nil resolver",
		opts: []runtime.Option{runtime.WithVocabulary(runtime.NewVocabulary("entity_type", nil))},
		want: `runtime: service t.v1.T: WithVocabulary: vocabulary "entity_type" has a nil resolver`,
	}, {
		name: "two of one name",
		opts: []runtime.Option{
			runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes)),
			runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes)),
		},
		want: `runtime: service t.v1.T: WithVocabulary: two vocabularies are named "entity_type"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := gosdk.Register(server, storeService(), tc.opts...)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Register: %v\nwant %s", err, tc.want)
			}
		})
	}
}

// The cache keeps a tenant's values for the TTL, per tenant; Invalidate
// drops one tenant's, InvalidateAll everyone's; a TTL of zero keeps none.
func TestVocabularyCachePolicy(t *testing.T) {
	ctx := context.Background()
	tr := newTypeRegistry()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := runtime.NewVocabulary("entity_type", tr.entityTypes, runtime.VocabularyOptions{TTL: time.Minute, Clock: func() time.Time { return now }})
	values := func(tenant string) []string {
		t.Helper()
		vs, err := v.Values(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range vs {
			out = append(out, x.Value)
		}
		return out
	}
	check := func(step string, acmeCalls, globexCalls int) {
		t.Helper()
		if a, g := tr.calls("acme"), tr.calls("globex"); a != acmeCalls || g != globexCalls {
			t.Fatalf("%s: resolver asked acme %d, globex %d times; want %d, %d", step, a, g, acmeCalls, globexCalls)
		}
	}
	values("acme")
	values("globex")
	values("acme")
	check("first use, then cached", 1, 1)

	tr.register("acme", runtime.VocabularyValue{Value: "invoice"})
	if got := strings.Join(values("acme"), ","); got != "person,company" {
		t.Fatalf("within the TTL without invalidation: %s", got)
	}
	v.Invalidate("acme")
	if got := strings.Join(values("acme"), ","); got != "person,company,invoice" {
		t.Fatalf("after Invalidate: %s", got)
	}
	values("globex")
	check("Invalidate is per tenant", 2, 1)

	now = now.Add(59 * time.Second)
	values("acme")
	check("still fresh", 2, 1)
	now = now.Add(time.Second)
	values("acme")
	values("globex")
	check("expired after the TTL", 3, 2)

	v.InvalidateAll()
	values("acme")
	values("globex")
	check("InvalidateAll", 4, 3)

	none := runtime.NewVocabulary("entity_type", tr.entityTypes, runtime.VocabularyOptions{TTL: -1})
	for range 2 {
		if _, err := none.Values(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	check("TTL 0 keeps nothing", 6, 3)
}

// Prepare checks a vocabulary field for the caller's tenant like a tool
// call; Decode, which has no caller, keeps it as sent.
func TestPreparerChecksVocabulariesForTheCaller(t *testing.T) {
	tr := newTypeRegistry()
	p, err := runtime.NewPreparer(storeService(), runtime.WithVocabulary(runtime.NewVocabulary("entity_type", tr.entityTypes)),
		runtime.WithVocabulary(runtime.NewVocabulary("tag", tr.tagValues)))
	if err != nil {
		t.Fatal(err)
	}
	m, es := p.Prepare(context.Background(), "store", []byte(`{"entity_type":"individual"}`), runtime.RequestContext{TenantID: "acme"})
	if es != nil || m.(*structpb.Struct).Fields["entity_type"].GetStringValue() != "person" {
		t.Fatalf("acme: %v %v", m, es)
	}
	_, es = p.Prepare(context.Background(), "store", []byte(`{"entity_type":"individual"}`), runtime.RequestContext{TenantID: "globex"})
	if len(es) != 1 || es[0].Code != runtime.CodeInvalidEnumValue || es[0].Field != "entity_type" || !reflect.DeepEqual(es[0].Suggestions.ValidValues, []string{"project"}) {
		t.Fatalf("globex: %+v", es)
	}
	m, es = p.Decode("store", []byte(`{"entity_type":"individual"}`))
	if es != nil || m.(*structpb.Struct).Fields["entity_type"].GetStringValue() != "individual" {
		t.Fatalf("Decode: %v %v", m, es)
	}
}

// With VocabularyOptions.PerPrincipal a user's own values stay that user's, in the
// cache too; Invalidate(tenant) drops every user's values of the tenant.
func TestVocabularyPerPrincipalKeepsUsersApart(t *testing.T) {
	var asked atomic.Int32
	own := map[string]string{"ada": "meal"}
	v := runtime.NewVocabulary("entity_type", func(ctx context.Context, tenant string) ([]runtime.VocabularyValue, error) {
		asked.Add(1)
		out := []runtime.VocabularyValue{{Value: "person"}}
		if rc, ok := runtime.RequestContextFrom(ctx); ok && own[rc.PrincipalID] != "" {
			out = append(out, runtime.VocabularyValue{Value: own[rc.PrincipalID]})
		}
		return out, nil
	}, runtime.VocabularyOptions{PerPrincipal: true})
	values := func(principal string) string {
		t.Helper()
		ctx := runtime.WithRequestContext(context.Background(), runtime.RequestContext{TenantID: "acme", PrincipalID: principal})
		vs, err := v.Values(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range vs {
			out = append(out, x.Value)
		}
		return strings.Join(out, ",")
	}
	if got := values("ada"); got != "person,meal" {
		t.Fatalf("ada: %s", got)
	}
	if got := values("bob"); got != "person" {
		t.Fatalf("bob after ada: %s", got)
	}
	values("ada")
	values("bob")
	if n := asked.Load(); n != 2 {
		t.Fatalf("resolver asked %d times, want once per user", n)
	}
	own["bob"] = "recipe"
	v.Invalidate("acme")
	if got := values("bob"); got != "person,recipe" {
		t.Fatalf("bob after Invalidate: %s", got)
	}
	values("ada")
	if n := asked.Load(); n != 4 {
		t.Fatalf("resolver asked %d times, want both users again after Invalidate", n)
	}
}

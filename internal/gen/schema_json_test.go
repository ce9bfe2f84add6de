package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/invopop/jsonschema"
)

// schemaStrings are the strings random schemas draw from: plain, and every
// kind encoding/json escapes (quotes, control bytes, HTML, U+2028, invalid
// UTF-8, non-ASCII).
var schemaStrings = []string{
	"", "name", "The agent's name", `say "hi"`, "a\\b", "line\nbreak\ttab\x01", "<b>&amp;</b>",
	"\u2028\u2029", "caf\u00e9 \U0001F600", "bad \xff utf8", "^[a-z]+$", "ApplicationComponent",
}

func randomString(r *rand.Rand) string { return schemaStrings[r.IntN(len(schemaStrings))] }

func randomCount(r *rand.Rand) *uint64 {
	if r.IntN(3) > 0 {
		return nil
	}
	n := r.Uint64N(1000)
	return &n
}

func randomNumber(r *rand.Rand) json.Number {
	return []json.Number{"", "", "0", "1", "-2.5", "1e3", "9007199254740993"}[r.IntN(7)]
}

func randomValue(r *rand.Rand) any {
	switch r.IntN(7) {
	case 0:
		return nil
	case 1:
		return randomString(r)
	case 2:
		return r.IntN(100)
	case 3:
		return r.IntN(2) == 0
	case 4:
		return []any{randomString(r), 1.5}
	case 5:
		return map[string]any{"b": randomString(r), "a": nil}
	default:
		return 0.1
	}
}

func randomSchemas(r *rand.Rand, depth int) []*jsonschema.Schema {
	if r.IntN(3) > 0 {
		return nil
	}
	out := make([]*jsonschema.Schema, r.IntN(3))
	for i := range out {
		out[i] = randomSchema(r, depth+1)
	}
	return out
}

func randomSchemaMap(r *rand.Rand, depth int) map[string]*jsonschema.Schema {
	if r.IntN(4) > 0 {
		return nil
	}
	m := map[string]*jsonschema.Schema{}
	for range r.IntN(3) {
		m[randomString(r)] = randomSchema(r, depth+1)
	}
	return m
}

func maybe(r *rand.Rand, depth int) *jsonschema.Schema {
	if r.IntN(4) > 0 {
		return nil
	}
	return randomSchema(r, depth+1)
}

// randomSchema sets each field of a schema or leaves it zero, nested
// schemas up to depth 3; some are true, false, nil or empty.
func randomSchema(r *rand.Rand, depth int) *jsonschema.Schema {
	switch {
	case depth > 3 || r.IntN(10) == 0:
		return []*jsonschema.Schema{nil, jsonschema.TrueSchema, jsonschema.FalseSchema, {}}[r.IntN(4)]
	}
	s := &jsonschema.Schema{}
	set := func() bool { return r.IntN(3) == 0 }
	if set() {
		s.Version = randomString(r)
	}
	if set() {
		s.ID = jsonschema.ID(randomString(r))
	}
	if set() {
		s.Ref = randomString(r)
	}
	if set() {
		s.Anchor, s.DynamicRef, s.Comments = randomString(r), randomString(r), randomString(r)
	}
	s.Definitions = randomSchemaMap(r, depth)
	s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems = randomSchemas(r, depth), randomSchemas(r, depth), randomSchemas(r, depth), randomSchemas(r, depth)
	s.Not, s.If, s.Then, s.Else = maybe(r, depth), maybe(r, depth), maybe(r, depth), maybe(r, depth)
	s.DependentSchemas, s.PatternProperties = randomSchemaMap(r, depth), randomSchemaMap(r, depth)
	s.Items, s.Contains, s.AdditionalProperties, s.PropertyNames, s.ContentSchema = maybe(r, depth), maybe(r, depth), maybe(r, depth), maybe(r, depth), maybe(r, depth)
	if set() {
		s.Properties = jsonschema.NewProperties()
		for range r.IntN(4) {
			s.Properties.Set(randomString(r), randomSchema(r, depth+1))
		}
	}
	if set() {
		s.Type = []string{"object", "string", "integer", "array", "boolean", "number"}[r.IntN(6)]
	}
	if set() {
		s.Enum = []any{randomValue(r), randomValue(r)}
	}
	if set() {
		s.Const = randomValue(r)
	}
	s.MultipleOf, s.Maximum, s.ExclusiveMaximum, s.Minimum, s.ExclusiveMinimum = randomNumber(r), randomNumber(r), randomNumber(r), randomNumber(r), randomNumber(r)
	s.MaxLength, s.MinLength, s.MaxItems, s.MinItems = randomCount(r), randomCount(r), randomCount(r), randomCount(r)
	s.MaxContains, s.MinContains, s.MaxProperties, s.MinProperties = randomCount(r), randomCount(r), randomCount(r), randomCount(r)
	if set() {
		s.Pattern = randomString(r)
	}
	s.UniqueItems, s.Deprecated, s.ReadOnly, s.WriteOnly = set(), set(), set(), set()
	if set() {
		s.Required = []string{randomString(r), randomString(r)}
	}
	if set() {
		s.DependentRequired = map[string][]string{randomString(r): {randomString(r)}}
	}
	if set() {
		s.Format, s.ContentEncoding, s.ContentMediaType = randomString(r), randomString(r), randomString(r)
	}
	if set() {
		s.Title = randomString(r)
	}
	if set() {
		s.Description = randomString(r)
	}
	if set() {
		s.Default = randomValue(r)
	}
	if set() {
		s.Examples = []any{randomValue(r)}
	}
	if r.IntN(5) == 0 {
		s.Extras = map[string]any{"x-" + randomString(r): randomValue(r), "x-b": 1}
	}
	return s
}

// checkSchemaJSON fails when schemaJSON and the library's MarshalJSON (as
// encoding/json calls it, for the top level and every nested schema)
// disagree.
func checkSchemaJSON(t *testing.T, s *jsonschema.Schema) {
	t.Helper()
	if msg := schemaJSONMismatch(s); msg != "" {
		t.Fatal(msg)
	}
}

// checkSchemasJSON is checkSchemaJSON for n schemas that next returns in
// order, checked on GOMAXPROCS goroutines while next makes the following
// ones; only a few are held at once (a random schema can take hundreds of
// kilobytes). It stops at the first mismatch and names the schema's index.
func checkSchemasJSON(t *testing.T, n int, next func() *jsonschema.Schema) {
	t.Helper()
	type indexed struct {
		i int
		s *jsonschema.Schema
	}
	workers := runtime.GOMAXPROCS(0)
	queue := make(chan indexed, 2*workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for q := range queue {
				if failed.Load() {
					continue
				}
				if msg := schemaJSONMismatch(q.s); msg != "" {
					failed.Store(true)
					t.Errorf("schema %d of the random stream: %s", q.i, msg)
				}
			}
		})
	}
	for i := 0; i < n && !failed.Load(); i++ {
		queue <- indexed{i, next()}
	}
	close(queue)
	wg.Wait()
}

// schemaJSONMismatch describes how schemaJSON and the library's encoding
// of s disagree, or is "".
func schemaJSONMismatch(s *jsonschema.Schema) string {
	want, wantErr := json.Marshal(s)
	got, err := schemaJSON(s)
	if (err != nil) != (wantErr != nil) {
		return fmt.Sprintf("schemaJSON error %v, library %v", err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		return fmt.Sprintf("schemaJSON differs from the library\n got: %s\nwant: %s", got, want)
	}
	return ""
}

func TestSchemaJSONMatchesTheLibrary(t *testing.T) {
	// The schemas come from one random stream, in order; the checks, which
	// encode each schema twice, run on every core.
	r := rand.New(rand.NewPCG(7, 11))
	checkSchemasJSON(t, 5000, func() *jsonschema.Schema { return randomSchema(r, 0) })
	if t.Failed() {
		return
	}
	// Only Extras, and a schema whose only member is an empty properties.
	checkSchemaJSON(t, &jsonschema.Schema{Extras: map[string]any{"x-a": "<"}})
	checkSchemaJSON(t, &jsonschema.Schema{Properties: jsonschema.NewProperties()})
	checkSchemaJSON(t, &jsonschema.Schema{Maximum: "1.5x"})
}

func FuzzSchemaJSON(f *testing.F) {
	for _, seed := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(seed, seed+1)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkSchemaJSON(t, randomSchema(rand.New(rand.NewPCG(a, b)), 0))
	})
}

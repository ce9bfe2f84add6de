package bench

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// sameArgs is the one input every per-call contender reads: createElement
// arguments an agent may send that protojson also accepts (the enum by its
// constant name, field names that are the same in both spellings). The
// information each contender produces from it is the same: a
// CreateElementRequest with type, name, description and parent_id set.
const sameArgs = `{"type":"ELEMENT_TYPE_APPLICATION_COMPONENT","name":"OrderService","description":"Handles order processing","parent_id":"el-parent-1"}`

// elementTypeNames is what the hand-written contenders accept for type, as
// the generated decoder does: the constant name, the alias and synonyms.
var elementTypeNames = func() map[string]archimatev1.ElementType {
	m := map[string]archimatev1.ElementType{}
	for name, n := range archimatev1.ElementType_value {
		if n == 0 {
			continue
		}
		m[name] = archimatev1.ElementType(n)
		var alias strings.Builder
		for _, w := range strings.Split(strings.TrimPrefix(name, "ELEMENT_TYPE_"), "_") {
			alias.WriteString(w[:1] + strings.ToLower(w[1:]))
		}
		m[alias.String()] = archimatev1.ElementType(n)
	}
	m["Component"] = archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT
	return m
}()

// createArgs is the agent's createElement input as a Go struct, for the
// encoding/json and json v2 contenders.
type createArgs struct {
	Type        *string `json:"type"`
	Name        *string `json:"name"`
	Description string  `json:"description"`
	ParentID    string  `json:"parent_id"`
}

var errCheck = errors.New("invalid arguments")

// checkAndBuild applies the checks the generated decoder applies to these
// fields (type required and known, name required with 1..200 characters,
// description at most 4000) and builds the request.
func checkAndBuild(a *createArgs) (*archimatev1.CreateElementRequest, error) {
	if a.Type == nil || a.Name == nil {
		return nil, fmt.Errorf("%w: type and name are required", errCheck)
	}
	t, ok := elementTypeNames[*a.Type]
	if !ok {
		return nil, fmt.Errorf("%w: unknown type %q", errCheck, *a.Type)
	}
	if n := utf8.RuneCountInString(*a.Name); n < 1 || n > 200 {
		return nil, fmt.Errorf("%w: name has %d characters", errCheck, n)
	}
	if utf8.RuneCountInString(a.Description) > 4000 {
		return nil, fmt.Errorf("%w: description too long", errCheck)
	}
	return &archimatev1.CreateElementRequest{Type: t, Name: *a.Name, Description: a.Description, ParentId: a.ParentID}, nil
}

// The contenders, each from the same bytes to a CreateElementRequest.

func decodeOurs(raw []byte) (proto.Message, error) {
	m, es := benchPreparer.Decode("createElement", raw)
	if len(es) > 0 {
		return nil, fmt.Errorf("%w: %v", errCheck, es)
	}
	return m, nil
}

func decodeProtoJSON(raw []byte) (proto.Message, error) {
	m := new(archimatev1.CreateElementRequest)
	if err := protojson.Unmarshal(raw, m); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeStdJSON(raw []byte) (proto.Message, error) {
	var a createArgs
	d := stdjson.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("%w: trailing data", errCheck)
	}
	return checkAndBuild(&a)
}

func decodeJSONv2(raw []byte) (proto.Message, error) {
	var a createArgs
	if err := jsonv2.Unmarshal(raw, &a, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, err
	}
	return checkAndBuild(&a)
}

// benchPreparer is the generated createElement path with the default clock
// and entropy, shared by the contenders.
var benchPreparer = func() *runtime.Preparer {
	p, err := runtime.NewPreparer(archimatev1mcpwrite.NewArchitectureService(echoHandler{}))
	if err != nil {
		panic(err)
	}
	return p
}()

var contenders = []struct {
	name   string
	decode func([]byte) (proto.Message, error)
}{
	{"ours-decode", decodeOurs},
	{"protojson", decodeProtoJSON},
	{"encoding-json", decodeStdJSON},
	{"json-v2", decodeJSONv2},
}

// Every contender turns sameArgs into the same request, and the ones with
// checks refuse the same bad inputs, so the benchmark compares like with like.
func TestContendersDecodeTheSameInformation(t *testing.T) {
	want := &archimatev1.CreateElementRequest{
		Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, Name: "OrderService",
		Description: "Handles order processing", ParentId: "el-parent-1",
	}
	for _, c := range contenders {
		got, err := c.decode([]byte(sameArgs))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	prepared, es := prepareCreate(benchPreparer, []byte(sameArgs))
	if len(es) > 0 {
		t.Fatalf("prepare: %v", es)
	}
	if prepared.GetName() != "OrderService" || prepared.GetParentId() != "el-parent-1" || prepared.GetId() == "" || prepared.GetLayer() != archimatev1.Layer_LAYER_APPLICATION {
		t.Fatalf("prepare did not enrich: %v", prepared)
	}
	bad := map[string]string{
		"unknown field":  `{"type":"Node","name":"db","colour":"red"}`,
		"missing name":   `{"type":"Node"}`,
		"unknown type":   `{"type":"Nodes-ish","name":"db"}`,
		"name too long":  `{"type":"Node","name":"` + strings.Repeat("x", 201) + `"}`,
		"trailing data":  `{"type":"Node","name":"db"} {}`,
		"wrong type":     `{"type":"Node","name":7}`,
		"too long descr": `{"type":"Node","name":"db","description":"` + strings.Repeat("é", 4001) + `"}`,
	}
	for what, in := range bad {
		for _, c := range contenders {
			if c.name == "protojson" {
				continue // no checks beyond the wire format
			}
			if _, err := c.decode([]byte(in)); err == nil {
				t.Errorf("%s accepted %s: %s", c.name, what, in)
			}
		}
	}
}

// BenchmarkPerCall times turning the same agent arguments into a
// CreateElementRequest: ours-decode (strict parse, decode and validation by
// the generated code), ours-prepare (the same plus enrichment: ids, time,
// tenant and trace metadata, derived layer, model resolver), protojson
// (parse only, no checks), encoding-json and json-v2 (into a struct with
// unknown members rejected, then the same checks and the request built).
//
// The contenders are interleaved: one op runs a batch of each, in an order
// that rotates every op, so garbage collection, frequency and load from
// elsewhere on the machine fall on all of them alike instead of on whichever
// ran while they lasted. <name>-ns/op is that contender's time per call.
// BenchmarkPerCallAllocs reports the allocations of each.
func BenchmarkPerCall(b *testing.B) {
	runs := perCallRuns(b)
	const batch = 64
	total := make([]time.Duration, len(runs))
	ops := 0
	for b.Loop() {
		for k := range runs {
			i := (k + ops) % len(runs)
			start := time.Now()
			for range batch {
				runs[i].run()
			}
			total[i] += time.Since(start)
		}
		ops++
	}
	for i, r := range runs {
		b.ReportMetric(float64(total[i].Nanoseconds())/float64(ops*batch), r.name+"-ns/op")
	}
}

// BenchmarkPerCallAllocs runs each contender of BenchmarkPerCall alone, for
// its allocations per call.
func BenchmarkPerCallAllocs(b *testing.B) {
	for _, r := range perCallRuns(b) {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.run()
			}
		})
	}
}

// perCallRun is one contender of BenchmarkPerCall: one call on sameArgs.
type perCallRun struct {
	name string
	run  func()
}

// perCallRuns is every contender of BenchmarkPerCall on sameArgs; a run
// that fails to build the request fails the benchmark.
func perCallRuns(b *testing.B) []perCallRun {
	raw := []byte(sameArgs)
	var runs []perCallRun
	for _, c := range contenders {
		runs = append(runs, perCallRun{c.name, func() {
			if _, err := c.decode(raw); err != nil {
				b.Fatal(err)
			}
		}})
	}
	p := preparer(b, nil, nil)
	runs = append(runs, perCallRun{"ours-prepare", func() {
		if m, es := prepareCreate(p, raw); len(es) > 0 || m.GetLayer() != archimatev1.Layer_LAYER_APPLICATION {
			b.Fatalf("prepare: %v", es)
		}
	}})
	return runs
}

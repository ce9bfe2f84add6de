package neotoma_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every optional argument the document gives a default for states that
// default in its tool's input schema, as the document writes it.
func TestInputSchemasStateTheDocumentsDefaults(t *testing.T) {
	want := map[string]any{
		"store.interpret": true, "store.source_priority": 100.0,
		"retrieve_file_url.expires_in": 3600.0,
		"list_observations.limit":      100.0, "list_observations.offset": 0.0,
		"retrieve_entities.limit": 100.0, "retrieve_entities.offset": 0.0,
		"retrieve_entities.include_snapshots": true, "retrieve_entities.include_merged": false,
		"retrieve_related_entities.direction": "both", "retrieve_related_entities.max_hops": 1.0,
		"retrieve_related_entities.include_entities": true,
		"retrieve_graph_neighborhood.node_type":      "entity", "retrieve_graph_neighborhood.include_relationships": true,
		"retrieve_graph_neighborhood.include_sources": true, "retrieve_graph_neighborhood.include_events": true,
		"retrieve_graph_neighborhood.include_observations": false,
		"list_timeline_events.limit":                       100.0, "list_timeline_events.offset": 0.0,
		"list_relationships.direction": "both", "list_relationships.limit": 100.0, "list_relationships.offset": 0.0,
		"analyze_schema_candidates.min_frequency": 5.0, "analyze_schema_candidates.min_confidence": 0.8,
		"get_schema_recommendations.source": "all", "get_schema_recommendations.status": "pending",
		"update_schema_incremental.user_specific": false, "update_schema_incremental.activate": true,
		"update_schema_incremental.migrate_existing": false,
		"register_schema.schema_version":             "1.0", "register_schema.user_specific": false, "register_schema.activate": false,
	}
	cs := newServer(t).connect(ada, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		for name, p := range in.Properties {
			if _, ok := want[tool.Name+"."+name]; ok {
				got[tool.Name+"."+name] = p["default"]
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("defaults (-document +schema):\n%s", diff)
	}
}

// No read is unbounded: every tool that lists takes a limit of at most
// 1000 (default 100), and the graph reads bound their hops.
func TestListReadsAreBounded(t *testing.T) {
	want := map[string]string{
		"list_observations.limit": "100 1..1000", "retrieve_entities.limit": "100 1..1000",
		"list_timeline_events.limit": "100 1..1000", "list_relationships.limit": "100 1..1000",
		"retrieve_related_entities.max_hops": "1 1..5",
	}
	res, err := newServer(t).connect(ada, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		for name, p := range in.Properties {
			if name == "limit" || name == "max_hops" {
				got[tool.Name+"."+name] = fmt.Sprintf("%v %v..%v", p["default"], p["minimum"], p["maximum"])
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("bounds (-want +got):\n%s", diff)
	}
}

package archimate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCapabilityStructureIsCreatedInOneStep(t *testing.T) {
	cs, repo := session(t, devRC)
	args := `{"name":"Fulfillment","value_streams":["Order to Cash"],"sub_capabilities":["Picking","Packing"],"client_request_id":"cap-struct-1"}`
	out, isErr := call(t, cs, "createCapabilityStructure", args)
	if isErr {
		t.Fatalf("isError: %v", out)
	}
	capID := out["capability"].(map[string]any)["id"].(string)
	var got []string
	for _, e := range out["created_elements"].([]any) {
		m := e.(map[string]any)
		got = append(got, m["type"].(string)+":"+m["name"].(string))
	}
	for _, r := range out["created_relationships"].([]any) {
		m := r.(map[string]any)
		got = append(got, m["type"].(string)+":"+m["source_id"].(string)+"->"+m["target_id"].(string))
	}
	want := []string{
		"ValueStream:Order to Cash", "Capability:Picking", "Capability:Packing",
		"Realization:" + capID + "->" + capID + "-vs-1",
		"Composition:" + capID + "->" + capID + "-sub-1",
		"Composition:" + capID + "->" + capID + "-sub-2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("structure (-want +got):\n%s", diff)
	}
	if len(repo.Received()) != 1 {
		t.Fatalf("the domain got %d requests, want one composite write", len(repo.Received()))
	}
	// All or nothing: a taken name creates nothing.
	out, isErr = call(t, cs, "createCapabilityStructure", `{"name":"Logistics","sub_capabilities":["Picking"]}`)
	if !isErr || out["error"].(map[string]any)["code"] != "ALREADY_EXISTS" {
		t.Fatalf("taken sub-capability name: %v", out)
	}
	if len(repo.Received()) != 1 {
		t.Fatalf("a refused template reached the domain")
	}
}

func TestAddComponentToCapabilityNeedsACapability(t *testing.T) {
	cs, _ := session(t, devRC)
	node, _ := call(t, cs, "createElement", `{"type":"Node","name":"db"}`)
	out, isErr := call(t, cs, "addComponentToCapability", `{"capability_id":"`+createdID(t, node)+`","component_name":"OrderService"}`)
	if !isErr || out["error"].(map[string]any)["message"] != "Element 'db' is a Node, not a Capability" {
		t.Fatalf("non-capability accepted: %v", out)
	}
	capOut, _ := call(t, cs, "createCapability", `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"Critical","lifecycle":"Active"}}`)
	capID := capOut["capability"].(map[string]any)["id"].(string)
	out, isErr = call(t, cs, "addComponentToCapability", `{"capability_id":"`+capID+`","component_name":"OrderService","services":["Order API"]}`)
	if isErr {
		t.Fatalf("isError: %v", out)
	}
	comp := out["component"].(map[string]any)
	if comp["type"] != "ApplicationComponent" || comp["layer"] != "Application" {
		t.Fatalf("component = %v", comp)
	}
	rels := out["created_relationships"].([]any)
	if len(rels) != 2 || rels[0].(map[string]any)["target_id"] != capID || rels[1].(map[string]any)["type"] != "Realization" {
		t.Fatalf("relationships = %v", rels)
	}
}

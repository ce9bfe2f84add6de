package gen_test

import (
	"strings"
	"testing"
)

// resourceService is a service that opts in to resources, with a Get
// whose resource declares no pattern, a Get that needs a second argument,
// and a Get whose only pattern is not a URI path.
const resourceService = `
import "google/api/resource.proto";
service S {
  option (mcpwrite.v1.service) = {resources: true};
  // Gets a thing.
  rpc GetThing(GetThingRequest) returns (Thing) { option (mcpwrite.v1.tool) = {kind: READ}; }
  // Gets a version of a thing.
  rpc GetVersion(GetVersionRequest) returns (Version) { option (mcpwrite.v1.tool) = {kind: READ}; }
  // Gets a pair.
  rpc GetPair(GetPairRequest) returns (Pair) { option (mcpwrite.v1.tool) = {kind: READ}; }
  // Counts things: a read that is not a Get, never warned about.
  rpc CountThings(GetThingRequest) returns (Thing) { option (mcpwrite.v1.tool) = {kind: READ}; }
}
message Thing { option (google.api.resource) = {type: "x.example.com/Thing"}; string name = 1; }
message GetThingRequest { string name = 1; }
message Version { option (google.api.resource) = {type: "x.example.com/Version" pattern: "things/{thing}/versions/{version}"}; string name = 1; }
message GetVersionRequest { string name = 1; string view = 2 [(google.api.field_behavior) = REQUIRED]; }
message Pair { option (google.api.resource) = {type: "x.example.com/Pair" pattern: "pairs/{a}~{b}"}; string name = 1; }
message GetPairRequest { string name = 1; }
`

// A service that opts in generates every tool; each Get that cannot be a
// resource is named with the reason and the option that silences it.
func TestResourcesOptInWarnsAboutGetsItCannotServe(t *testing.T) {
	errText, warn, tools := generateWarn(t, resourceService)
	if errText != "" {
		t.Fatalf("generation failed: %s", errText)
	}
	if got := strings.Join(tools, ","); got != "get_thing,get_version,get_pair,count_things" {
		t.Fatalf("tools: %s", got)
	}
	want := "protoc-gen-mcpwrite: warning: bad.proto:13:3: method bad.v1.S.GetThing: tool get_thing is not served as a resource: resource type x.example.com/Thing declares no pattern; to silence this, set option (mcpwrite.v1.tool) = {resource: false};\n" +
		"protoc-gen-mcpwrite: warning: bad.proto:15:3: method bad.v1.S.GetVersion: tool get_version is not served as a resource: its request also requires view, which a resource URI does not carry; to silence this, set option (mcpwrite.v1.tool) = {resource: false};\n" +
		"protoc-gen-mcpwrite: warning: bad.proto:17:3: method bad.v1.S.GetPair: tool get_pair is not served as a resource: no pattern of resource type x.example.com/Pair can be a URI template: \"pairs/{a}~{b}\" has the segment \"{a}~{b}\" (only collection ids and whole {variable} segments map to a URI); to silence this, set option (mcpwrite.v1.tool) = {resource: false};\n"
	if warn != want {
		t.Fatalf("warnings\n got: %q\nwant: %q", warn, want)
	}
}

// resource: true on a method that cannot be a resource is an error naming
// what is missing; so is a resource_scheme that is not a URI scheme.
func TestResourceOptionRefusesWhatCannotBeAResource(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"a write", `
import "google/api/resource.proto";
service S {
  // Creates a thing.
  rpc CreateThing(Thing) returns (Thing) { option (mcpwrite.v1.tool) = {kind: CREATE resource: true}; }
}
message Thing { option (google.api.resource) = {type: "x.example.com/Thing" pattern: "things/{thing}"}; string name = 1; }
`, `bad.proto:12:3: method bad.v1.S.CreateThing: resource: true, but tool create_thing is not a read (kind READ); only an AIP-131 Get can be a resource; remove resource: true, or see docs/resources.md for what a resource needs`},
		{"no resource type", `
service S {
  // Gets a thing.
  rpc GetThing(GetThingRequest) returns (Thing) { option (mcpwrite.v1.tool) = {kind: READ resource: true}; }
}
message Thing { string name = 1; }
message GetThingRequest { string name = 1; }
`, `bad.proto:11:3: method bad.v1.S.GetThing: resource: true, but neither its response bad.v1.Thing has a google.api.resource option nor its name field a google.api.resource_reference to a type this build declares; remove resource: true, or see docs/resources.md for what a resource needs`},
		{"no name field", `
import "google/api/resource.proto";
service S {
  // Gets a thing.
  rpc GetThing(GetThingRequest) returns (Thing) { option (mcpwrite.v1.tool) = {kind: READ resource: true}; }
}
message Thing { option (google.api.resource) = {type: "x.example.com/Thing" pattern: "things/{thing}"}; string name = 1; }
message GetThingRequest { string id = 1; }
`, `bad.proto:12:3: method bad.v1.S.GetThing: resource: true, but its request bad.v1.GetThingRequest has no agent-supplied field name; remove resource: true, or see docs/resources.md for what a resource needs`},
		{"bad scheme", `
import "google/api/resource.proto";
service S {
  option (mcpwrite.v1.service) = {resources: true resource_scheme: "My Scheme"};
  // Gets a thing.
  rpc GetThing(GetThingRequest) returns (Thing) { option (mcpwrite.v1.tool) = {kind: READ}; }
}
message Thing { option (google.api.resource) = {type: "x.example.com/Thing" pattern: "things/{thing}"}; string name = 1; }
message GetThingRequest { string name = 1; }
`, `bad.proto:10:1: service bad.v1.S: resource_scheme "My Scheme" is not a URI scheme: use a lower-case letter followed by up to 31 letters, digits, '+', '-' or '.' (e.g. "aip")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := generate(t, c.src, "")
			if got != c.want {
				t.Fatalf("error\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
}

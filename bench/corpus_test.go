package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// corpusVerbs cycles the four tool kinds through a file's methods, so the
// corpus exercises every annotation pattern the generator handles.
var corpusVerbs = [...]string{"Create", "Update", "Delete", "Archive"}

// writeCorpus writes files proto files with methodsPerFile annotated methods
// each under dir and returns their paths relative to dir.
func writeCorpus(dir string, files, methodsPerFile int) ([]string, error) {
	var paths []string
	for i := 0; i < files; i++ {
		rel := fmt.Sprintf("corpus/f%02d/v1/f%02d.proto", i, i)
		full := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(corpusFile(i, methodsPerFile)), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, rel)
	}
	return paths, nil
}

// corpusFile is one synthetic capability proto: a service of n methods
// (create, update, delete and action tools in turn), a server-filled meta
// envelope, a discoverable enum with implied groups, resolvers, generated
// IDs and timestamps, constraints, maps, repeated and nested messages.
func corpusFile(i, n int) string {
	pkg := fmt.Sprintf("corpus.f%02d.v1", i)
	var b strings.Builder
	fmt.Fprintf(&b, `// Synthetic capability %[1]d for the generation benchmark.
syntax = "proto3";

package %[2]s;

import "google/protobuf/timestamp.proto";
import "mcpwrite/v1/mcpwrite.proto";

option go_package = "example.com/corpus/f%02[1]d/v1;f%02[1]dv1";

// Service%[1]d is the write surface of capability %[1]d.
service Service%[1]d {
`, i, pkg)
	for j := 0; j < n; j++ {
		verb := corpusVerbs[j%len(corpusVerbs)]
		kind := map[string]string{"Create": "CREATE", "Update": "UPDATE", "Delete": "DELETE", "Archive": "ACTION"}[verb]
		result := ` result: "item"`
		if verb == "Delete" {
			result = ""
		}
		fmt.Fprintf(&b, `  // %[1]s item %[2]d of the capability.
  rpc %[1]sItem%[2]d(%[1]sItem%[2]dRequest) returns (%[1]sItem%[2]dResponse) {
    option (mcpwrite.v1.tool) = {kind: %[3]s%[4]s};
  }
`, verb, j, kind, result)
	}
	fmt.Fprintf(&b, `}

// Tier groups the item kinds.
enum Tier {
  TIER_UNSPECIFIED = 0;
  TIER_BRONZE = 1;
  TIER_SILVER = 2;
  TIER_GOLD = 3;
}

// ItemKind is what an item is.
enum ItemKind {
  option (mcpwrite.v1.enum) = {discovery: true group_by: "%[1]s.Tier"};
  ITEM_KIND_UNSPECIFIED = 0;
  ITEM_KIND_WIDGET = 1 [(mcpwrite.v1.value) = {description: "A small part", implies: "%[1]s.Tier.TIER_BRONZE"}];
  ITEM_KIND_GADGET = 2 [(mcpwrite.v1.value) = {description: "A clever device", synonyms: ["Gizmo"], implies: "%[1]s.Tier.TIER_SILVER"}];
  ITEM_KIND_MACHINE = 3 [(mcpwrite.v1.value) = {description: "A large assembly", implies: "%[1]s.Tier.TIER_GOLD"}];
  ITEM_KIND_SERVICE_PLAN = 4 [(mcpwrite.v1.value) = {description: "A support contract", implies: "%[1]s.Tier.TIER_GOLD"}];
}

// Meta is the intent envelope; the server fills all of it.
message Meta {
  string message_id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V4}];
  string correlation_id = 2 [(mcpwrite.v1.field).derived = {context: CORRELATION_ID}];
  string tenant_id = 3 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
  google.protobuf.Timestamp occurred_at = 4 [(mcpwrite.v1.field).generated = {kind: NOW}];
  string client_request_id = 5 [(mcpwrite.v1.field).derived = {context: CLIENT_REQUEST_ID}];
  string principal_id = 6 [(mcpwrite.v1.field).derived = {context: PRINCIPAL_ID}];
  string traceparent = 7 [(mcpwrite.v1.field).derived = {context: TRACEPARENT}];
}

// Item is the canonical entity.
message Item {
  string id = 1;
  string model_id = 2;
  ItemKind kind = 3;
  Tier tier = 4;
  string name = 5;
  string description = 6;
  map<string, string> labels = 7;
  repeated string tags = 8;
  int32 version = 9;
}

// Profile is a required nested part of an action.
message Profile {
  string owner = 1 [(mcpwrite.v1.field).agent = {required: true description: "Owning team" min_length: 1}];
  ItemKind kind = 2 [(mcpwrite.v1.field).enum_alias = {required: true}];
}
`, pkg)
	for j := 0; j < n; j++ {
		verb := corpusVerbs[j%len(corpusVerbs)]
		fmt.Fprintf(&b, "\nmessage %sItem%dRequest {\n  Meta meta = 1;\n", verb, j)
		switch verb {
		case "Create":
			b.WriteString(`  // Item id.
  string id = 2 [(mcpwrite.v1.field).generated = {kind: UUID_V7 overridable: true}];
  // Model to add to.
  string model_id = 3 [(mcpwrite.v1.field).derived = {resolver: "active_model" overridable: true}];
  ItemKind kind = 4 [(mcpwrite.v1.field).enum_alias = {required: true description: "Item kind (e.g., Widget, Gadget)"}];
  Tier tier = 5 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
  string name = 6 [(mcpwrite.v1.field).agent = {required: true description: "Item name" min_length: 1 max_length: 200 examples: "\"Sprocket\""}];
  string description = 7 [(mcpwrite.v1.field).agent = {description: "Item description" max_length: 4000}];
  // Free-form labels.
  map<string, string> labels = 8;
  repeated string tags = 9 [(mcpwrite.v1.field).agent = {max_items: 20}];
  int32 quantity = 10 [(mcpwrite.v1.field).agent = {minimum: 0 maximum: 1000}];
  google.protobuf.Timestamp created_at = 11 [(mcpwrite.v1.field).generated = {kind: NOW}];
`)
		case "Update":
			b.WriteString(`  string id = 2 [(mcpwrite.v1.field).agent = {required: true description: "Item ID to update"}];
  // New name (if changing).
  optional string name = 3 [(mcpwrite.v1.field).agent = {min_length: 1 max_length: 200}];
  // New description (if changing).
  optional string description = 4;
  // Labels to merge.
  map<string, string> labels = 5;
  int32 expected_version = 6 [(mcpwrite.v1.field).derived = {resolver: "current_version"}];
`)
		case "Delete":
			b.WriteString(`  string id = 2 [(mcpwrite.v1.field).agent = {required: true description: "Item ID to delete"}];
  optional bool cascade = 3 [(mcpwrite.v1.field).agent = {default: "true" description: "Also delete dependent items"}];
`)
		case "Archive":
			b.WriteString(`  string id = 2 [(mcpwrite.v1.field).agent = {required: true description: "Item ID to archive"}];
  string reason = 3 [(mcpwrite.v1.field).agent = {required: true pattern: "^[a-z ]+$" max_length: 500}];
  google.protobuf.Timestamp effective_at = 4;
  Profile profile = 5 [(mcpwrite.v1.field).agent = {required: true description: "Who takes over"}];
`)
		}
		b.WriteString("}\n")
		if verb == "Delete" {
			fmt.Fprintf(&b, "\nmessage %sItem%dResponse {\n  string id = 1;\n  repeated string deleted = 2;\n}\n", verb, j)
		} else {
			fmt.Fprintf(&b, "\nmessage %sItem%dResponse {\n  Item item = 1;\n}\n", verb, j)
		}
	}
	return b.String()
}

package gen_test

import (
	"bytes"
	"testing"
)

// item_key is refused where it cannot be a batch item's key, with the
// reason and the fix.
func TestItemKeyMisuseIsReported(t *testing.T) {
	batch := `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req { repeated Item items = 1; }
`
	cases := []struct {
		name, src, want string
	}{
		{
			name: "on a number",
			src: batch + `
message Item { int32 key = 1 [(mcpwrite.v1.field).agent = {item_key: true}]; }`,
			want: `bad.proto:15:16: message bad.v1.Item: field key: item_key marks a singular string field (the item's idempotency key), not an int32 field; mark a string field instead, e.g. string client_request_id = 99 [(mcpwrite.v1.field).agent = {item_key: true}];`,
		},
		{
			name: "on a list",
			src: batch + `
message Item { repeated string keys = 1 [(mcpwrite.v1.field).agent = {item_key: true}]; }`,
			want: `bad.proto:15:16: message bad.v1.Item: field keys: item_key marks a singular string field (the item's idempotency key), not a repeated field; mark a string field instead, e.g. string client_request_id = 99 [(mcpwrite.v1.field).agent = {item_key: true}];`,
		},
		{
			name: "twice in one item",
			src: batch + `
message Item {
  string a = 1 [(mcpwrite.v1.field).agent = {item_key: true}];
  string b = 2 [(mcpwrite.v1.field).agent = {item_key: true}];
}`,
			want: `bad.proto:17:3: message bad.v1.Item: field b: item_key is already field a of bad.v1.Item; an item has one key`,
		},
		{
			name: "on a oneof member",
			src: batch + `
message Item {
  oneof which {
    string a = 1 [(mcpwrite.v1.field).agent = {item_key: true}];
    string b = 2;
  }
}`,
			want: `bad.proto:17:5: message bad.v1.Item: field a: item_key cannot mark a oneof member: every item carries its key in the same field; move the field out of the oneof, or drop item_key`,
		},
		{
			name: "in a message that is no list's items",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req {
  Item one = 1;
  map<string, Item> by_name = 2;
}
message Item { string key = 1 [(mcpwrite.v1.field).agent = {item_key: true}]; }`,
			want: `bad.proto:17:16: message bad.v1.Item: field key: item_key applies to the items of a repeated field, and no repeated field of these tools has bad.v1.Item as its items; drop item_key or use the message as a list's items`,
		},
		{
			name: "in a message that is also a map's values",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req {
  repeated Item items = 1;
  map<string, Item> by_name = 2;
}
message Item { string key = 1 [(mcpwrite.v1.field).agent = {item_key: true}]; }`,
			want: `bad.proto:17:16: message bad.v1.Item: field key: item_key keys a list's items, and bad.v1.Item is also the value type of a map of these tools, where the entry's key keys it; use another message for the map's values`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, tc.src, "")
			if got != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tc.want)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
		})
	}
}

// An item key in a list's items is checked by the decoder once the list is
// decoded, and the item's REQUEST_SCOPED field derives from it; the fills
// of the items are made inside each item, named by its path.
func TestItemKeyAndItemFillsAreGenerated(t *testing.T) {
	src := `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req { repeated Item items = 1 [(mcpwrite.v1.field).agent = {max_items: 10}]; }
message Item {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: REQUEST_SCOPED}];
  string key = 2 [(mcpwrite.v1.field).agent = {item_key: true}];
}`
	code := []byte(goOutput(t, src))
	for _, want := range []string{
		`			if len(m.Items) == len(arr) {
				mcpwriteimpl.UniqueItemKeys(d, "items", "key", m.Items, (*v1.Item).GetKey)
			}
`,
		`	c.Enter("items")
	for i, x := range m.Items {
		c.EnterIndex(i)
		err := enrichSItem(c, x)
		c.Leave()
		if err != nil {
			c.Leave()
			return err
		}
	}
	c.Leave()
`,
		`	m.Id = c.ItemScopedID(m.GetKey())
`,
	} {
		if !bytes.Contains(code, []byte(want)) {
			t.Errorf("generated code lacks:\n%s", want)
		}
	}
}

// A list whose items the server fills each on its own is bounded where it
// is declared: without max_items the plugin warns, naming the tool and the
// list's path; a list with max_items (or of items without fills) does not.
func TestUnboundedFilledItemsWarn(t *testing.T) {
	src := `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Item {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
  string name = 2;
}
message Plain { string name = 1; }
message Group {
  repeated Item items = 1;
  repeated Plain plain = 2;
}
message Req {
  repeated Item bounded = 1 [(mcpwrite.v1.field).agent = {max_items: 5}];
  repeated Item open = 2;
  Group group = 3;
}`
	want := "protoc-gen-mcpwrite: warning: bad.proto:24:3: tool do: the server fills every item of open[] on its own and the list has no max_items; bound it so one call's work is bounded: [(mcpwrite.v1.field).agent = {max_items: 100}] or [(buf.validate.field).repeated.max_items = 100]\n" +
		"protoc-gen-mcpwrite: warning: bad.proto:19:3: tool do: the server fills every item of group.items[] on its own and the list has no max_items; bound it so one call's work is bounded: [(mcpwrite.v1.field).agent = {max_items: 100}] or [(buf.validate.field).repeated.max_items = 100]\n"
	if got := lintIDsWarnings(t, src); got != want {
		t.Errorf("warnings:\n got: %q\nwant: %q", got, want)
	}
}

package checked_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"

	checkedv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/checked/gen/checked/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/checked/gen/checked/v1/checkedv1mcpwrite"
)

type handler struct{}

func (handler) BookRoom(context.Context, *checkedv1.BookRoomRequest) (*checkedv1.BookRoomResponse, error) {
	return &checkedv1.BookRoomResponse{}, nil
}

// The plugin's check of a tool example and the server's path for the same
// arguments (decode, enrichment from the request context, protovalidate's
// request check) agree on every row: well-known types, 64-bit integers and
// bytes read as text, buf.validate formats, affixes, lists of values and
// CEL rules at field and message level, and the rules over what the server
// fills (the tenant, a generated id, a message rule reading the tenant),
// which hold on the server and are not the example's.
func TestToolExampleCheckAgreesWithTheServer(t *testing.T) {
	table := []struct {
		name, input string
		accepted    bool
	}{
		{"only the fields the rules require", `{"room":"R-1","email":"ada@example.com","color":"red"}`, true},
		{"every field", `{"room":"R-1","email":"ada@example.com","window":{"starts":"2024-05-01T09:00:00Z","ends":"2024-05-01T10:00:00+00:00"},"length":"1h30m","notify":"email, room","attrs":{"team":"payments"},"budget":"9007199254740993","seats":"2","badge":"aGk","color":"red","note":"OK","tags":["a"]}`, true},
		{"a duration in the protobuf form", `{"room":"R-1","email":"ada@example.com","color":"red","length":"-0.25s"}`, true},
		{"a struct as JSON text", `{"room":"R-1","email":"ada@example.com","color":"red","attrs":"{\"a\":1}"}`, true},
		{"bytes in the URL alphabet", `{"room":"R-1","email":"ada@example.com","color":"red","badge":"-_8"}`, true},
		{"the whole-resource mask", `{"room":"R-1","email":"ada@example.com","color":"red","notify":"*"}`, true},
		{"a value as JSON text of a list", `{"room":"R-1","email":"ada@example.com","color":"red","note":"[1,2]"}`, true},
		{"room left out", `{"email":"ada@example.com","color":"red"}`, false},
		{"email and color left out (their rules refuse the empty string)", `{"room":"R-1"}`, false},
		{"not an email", `{"room":"R-1","email":"ada","color":"red"}`, false},
		{"room without its prefix", `{"room":"1","email":"ada@example.com","color":"red"}`, false},
		{"a window ending before it starts", `{"room":"R-1","email":"ada@example.com","color":"red","window":{"starts":"2024-05-01T10:00:00Z","ends":"2024-05-01T09:00:00Z"}}`, false},
		{"a duration in words", `{"room":"R-1","email":"ada@example.com","color":"red","length":"an hour"}`, false},
		{"a duration beyond 10000 years", `{"room":"R-1","email":"ada@example.com","color":"red","length":"315576000001s"}`, false},
		{"a timestamp in words", `{"room":"R-1","email":"ada@example.com","color":"red","window":{"starts":"May 1"}}`, false},
		{"a timestamp before year 1", `{"room":"R-1","email":"ada@example.com","color":"red","window":{"starts":"0000-01-01T00:00:00Z","ends":"2024-05-01T09:00:00Z"}}`, false},
		{"a mask path that is not one", `{"room":"R-1","email":"ada@example.com","color":"red","notify":"a..b"}`, false},
		{"a struct that is an array", `{"room":"R-1","email":"ada@example.com","color":"red","attrs":[1]}`, false},
		{"a struct as broken JSON text", `{"room":"R-1","email":"ada@example.com","color":"red","attrs":"{"}`, false},
		{"a 64-bit wrapper as a number", `{"room":"R-1","email":"ada@example.com","color":"red","budget":9}`, false},
		{"an odd number of seats", `{"room":"R-1","email":"ada@example.com","color":"red","seats":"3"}`, false},
		{"seats that are not a decimal integer", `{"room":"R-1","email":"ada@example.com","color":"red","seats":"4.2"}`, false},
		{"bytes that are not base64", `{"room":"R-1","email":"ada@example.com","color":"red","badge":"a"}`, false},
		{"a colour not in the list", `{"room":"R-1","email":"ada@example.com","color":"blue"}`, false},
		{"a tag the list refuses", `{"room":"R-1","email":"ada@example.com","color":"red","tags":["a","none"]}`, false},
		{"a number for a string", `{"room":5,"email":"ada@example.com","color":"red"}`, false},
	}
	src, err := os.ReadFile(filepath.Join("proto", "checked", "v1", "checked.proto"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.NewPreparer(checkedv1mcpwrite.NewBookingService(handler{}))
	if err != nil {
		t.Fatal(err)
	}
	const option = `option (mcpwrite.v1.tool) = {kind: CREATE};`
	if !strings.Contains(string(src), option) {
		t.Fatalf("checked.proto no longer has %s", option)
	}
	rc := runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}
	for _, tc := range table {
		_, es := p.Prepare(context.Background(), "book_room", []byte(tc.input), rc)
		served := len(es) == 0
		dir := t.TempDir()
		withExample := strings.Replace(string(src), option,
			`option (mcpwrite.v1.tool) = {kind: CREATE examples: [{input: `+strconv.Quote(tc.input)+`}]};`, 1)
		if err := os.MkdirAll(filepath.Join(dir, "checked", "v1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "checked", "v1", "checked.proto"), []byte(withExample), 0o644); err != nil {
			t.Fatal(err)
		}
		req, err := plugintest.Request([]string{dir, "../../../annotations", "../../../third_party/protovalidate"}, []string{"checked/v1/checked.proto"}, "paths=source_relative")
		if err != nil {
			t.Fatalf("%s: compile: %v", tc.name, err)
		}
		resp, err := plugintest.Run(req)
		if err != nil {
			t.Fatalf("%s: run: %v", tc.name, err)
		}
		generated := resp.GetError() == ""
		if served != tc.accepted || generated != tc.accepted {
			t.Errorf("%s: server accepts %v (%v), plugin accepts %v (%s); want both %v", tc.name, served, es, generated, resp.GetError(), tc.accepted)
		}
	}
}

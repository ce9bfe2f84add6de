package mcpgoonly_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	mgoclient "github.com/mark3labs/mcp-go/client"
	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/mcpgoonly"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/mcpgoonly/gen/parking/v1/parkingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// client is an mcp-go client, in process, against an mcp-go server the
// generated RegisterParkingServiceTools registered the tools on.
func client(t *testing.T, g *mcpgoonly.Garage) *mgoclient.Client {
	t.Helper()
	s := server.NewMCPServer("parking", "test", server.WithToolCapabilities(false))
	who := runtime.RequestContext{TenantID: "tenant-p", PrincipalID: "user-p"}
	if err := parkingv1mcpwrite.RegisterParkingServiceTools(s, g, runtime.WithRequestContextFunc(runtime.StaticRequestContext(who))); err != nil {
		t.Fatal(err)
	}
	c, err := mgoclient.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mgo.Implementation{Name: "agent", Version: "test"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// call calls tool with args and returns its structured answer as JSON (scanned
// by mcptest.CheckAnswer) and isError.
func call(t *testing.T, c *mgoclient.Client, tool, args string) (string, bool) {
	t.Helper()
	req := mgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		mcptest.CheckAnswer(t, tool, err.Error())
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.CheckAnswer(t, tool, string(whole))
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), res.IsError
}

var uuidV7 = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)

// The tools generated with sdk=mcp-go, registered by the generated
// RegisterParkingServiceTools on an mcp-go server, answer an mcp-go client:
// the write tool and the service tools are listed, a reservation gets a
// UUIDv7 and the tenant and holder of the request context, and mistakes
// are answered all at once.
func TestGeneratedRegistrationServesAnMCPGoClient(t *testing.T) {
	g := &mcpgoonly.Garage{}
	c := client(t, g)
	list, err := c.ListTools(context.Background(), mgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "get_write_schema reserve_spot validate_write" {
		t.Fatalf("tools/list: %s", got)
	}

	got, isErr := call(t, c, "reserve_spot", `{"level":"Roof","day":"2026-12-01","plate":"B-XY 123"}`)
	id := uuidV7.FindString(got)
	want := `{"reservation":{"day":"2026-12-01","level":"Roof","plate":"B-XY 123","reservation_id":"` + id + `"},"success":true,"suggestions":[],"warnings":[]}`
	if isErr || id == "" || got != want {
		t.Fatalf("reserve_spot: isError %v\n%s\nwant\n%s", isErr, got, want)
	}
	if len(g.Reserved) != 1 || g.Reserved[0].GetTenantId() != "tenant-p" || g.Reserved[0].GetHolder() != "user-p" || g.Reserved[0].GetReservationId() != id {
		t.Fatalf("the domain received %v", g.Reserved)
	}

	got, isErr = call(t, c, "reserve_spot", `{"level":"Rof","day":"1 Dec","plate":"B","holder":"someone"}`)
	// The first mistake is also the answer's error; the misspelt value is
	// echoed cut short ("R…").
	level := `{"code":"INVALID_ENUM_VALUE","field":"level","message":"invalid value \"R…\" for level; did you mean \"Roof\"?","suggestions":{"did_you_mean":["Roof"],"valid_values":["Ground","Upper","Roof"]}}`
	want = `{"error":` + level + `,"errors":[` + level + `,` +
		`{"code":"CONSTRAINT_VIOLATION","field":"day","message":"must match the pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ (got 5 characters that do not)"},` +
		`{"code":"CONSTRAINT_VIOLATION","field":"plate","message":"must be at least 2 characters, got 1"},` +
		`{"code":"UNKNOWN_FIELD","field":"holder","message":"unknown field \"holder\": the server fills holder itself","suggestions":{"hint":"holder is filled by the server (principal id from the request context); leave it out","valid_values":["level","day","plate"]}}],` +
		`"success":false}`
	if !isErr || got != want {
		t.Fatalf("reserve_spot with mistakes: isError %v\n%s\nwant\n%s", isErr, got, want)
	}
	if len(g.Reserved) != 1 {
		t.Fatalf("a refused call reached the domain: %v", g.Reserved)
	}
}

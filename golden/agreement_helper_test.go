package golden_test

// agreementHelperSource is the program TestGoldenSchemaAndDecoderAgree
// builds over the generated golden packages: it prints every service's
// tools as tools/list advertises them (one JSON line), then answers each
// call line {case, service, tool, args} with {errors, how}: the preparer's
// problems with the call, and "prepare" or, when the enrichment needed the
// absent handler, "decode" (Decode's answer). A panic anywhere is answered
// as an INTERNAL error, which the agreement test counts as a disagreement.
const agreementHelperSource = `package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
//IMPORTS
)

var services = []struct {
	c   string
	svc *mcpwriteimpl.Service
}{
//SERVICES
}

// vocabularies serve the live vocabularies a golden case's fields take.
var vocabularies = map[string][]runtime.PreparerOption{
	"vocabularies": {
		runtime.WithVocabulary(runtime.NewVocabulary("entity_type", values("invoice", "person"))),
		runtime.WithVocabulary(runtime.NewVocabulary("tag", values("urgent", "later"))),
	},
}

func values(vs ...string) func(context.Context, string) ([]runtime.VocabularyValue, error) {
	return func(context.Context, string) ([]runtime.VocabularyValue, error) {
		out := make([]runtime.VocabularyValue, len(vs))
		for i, v := range vs {
			out[i] = runtime.VocabularyValue{Value: v}
		}
		return out, nil
	}
}

type listed struct {
	Case, Service string
	Tools         []*mcp.Tool
	// Refused is why NewPreparer refuses the service (a golden case of
	// that refusal); it then has no tools.
	Refused string
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	preparers := map[string]*runtime.Preparer{}
	var all []listed
	for _, s := range services {
		p, err := runtime.NewPreparer(s.svc, vocabularies[s.c]...)
		if err != nil {
			all = append(all, listed{Case: s.c, Service: s.svc.Name, Refused: err.Error()})
			continue
		}
		preparers[s.c+" "+s.svc.Name] = p
		all = append(all, listed{Case: s.c, Service: s.svc.Name, Tools: advertised(s.c, s.svc)})
	}
	enc.Encode(all)
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		var call struct{ Case, Service, Tool, Args string }
		if err := json.Unmarshal(in.Bytes(), &call); err != nil {
			fail("call", err)
		}
		es, how := answer(preparers[call.Case+" "+call.Service], call.Tool, []byte(call.Args))
		enc.Encode(map[string]any{"errors": es, "how": how})
		out.Flush()
	}
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	os.Exit(1)
}

// advertised lists the service's own tools as tools/list does.
func advertised(c string, svc *mcpwriteimpl.Service) (tools []*mcp.Tool) {
	s := mcp.NewServer(&mcp.Implementation{Name: c, Version: "agree"}, nil)
	rc := runtime.StaticRequestContext(runtime.RequestContext{TenantID: "agree-tenant", PrincipalID: "agree-user"})
	opts := []runtime.Option{runtime.WithRequestContextFunc(rc), runtime.WithProposals(proposal.NewMemoryStore(), time.Hour)}
	for _, v := range vocabularies[c] {
		opts = append(opts, v)
	}
	if err := gosdk.Register(s, svc, opts...); err != nil {
		fail(c, err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		fail(c, err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agree", Version: "agree"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		fail(c, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		fail(c, err)
	}
	own := map[string]bool{}
	for _, t := range svc.Tools {
		own[t.Name] = true
	}
	for _, t := range res.Tools {
		if own[t.Name] {
			tools = append(tools, t)
		}
	}
	return tools
}

func answer(p *runtime.Preparer, tool string, args []byte) (es runtime.Errors, how string) {
	if es, ok := prepare(p, tool, args); ok {
		return es, "prepare"
	}
	defer func() {
		if r := recover(); r != nil {
			es, how = runtime.Errors{{Code: "INTERNAL", Message: fmt.Sprintf("decode panicked: %v", r)}}, "panic"
		}
	}()
	_, es = p.Decode(tool, args)
	return es, "decode"
}

// prepare is false when the enrichment called the absent handler.
func prepare(p *runtime.Preparer, tool string, args []byte) (es runtime.Errors, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			es, ok = nil, false
		}
	}()
	rc := runtime.RequestContext{TenantID: "agree-tenant", PrincipalID: "agree-user", CorrelationID: "agree"}
	_, es = p.Prepare(context.Background(), tool, args, rc)
	return es, true
}
`

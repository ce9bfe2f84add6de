package runtime

// Helpers every stage and entry point uses to build an answer: the clock, the
// error result and body, rendering, handler errors, next steps and warnings.
// Stages return these results; none calls back into the orchestrator.

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// now is the configured clock.
func (r *registry) now() time.Time { return r.cfg.clock() }

// errorBody lets the domain hook amend the entries and renders the envelope.
func (r *registry) errorBody(ctx context.Context, tool string, req proto.Message, es impl.Errors) []byte {
	if r.cfg.errorHook != nil {
		for _, e := range es {
			if e != nil {
				r.cfg.errorHook(ctx, tool, req, e)
			}
		}
	}
	return r.render(ctx, tool, errorEnvelope(es))
}

// errorResult is errorBody as an isError tool result.
func (r *registry) errorResult(ctx context.Context, tool string, req proto.Message, es impl.Errors) *mcp.CallToolResult {
	return toolResult(r.errorBody(ctx, tool, req, es), true)
}

// render marshals an envelope; a value that cannot be marshalled is a bug,
// answered as INTERNAL rather than a protocol error.
func (r *registry) render(ctx context.Context, tool string, o object) []byte {
	b, err := marshalJSON(o)
	if err != nil {
		e := r.internal(ctx, tool, fmt.Errorf("marshal result: %w", err))
		b, _ = marshalJSON(errorEnvelope(impl.Errors{e}))
	}
	return b
}

// fail answers es for the call's request (nil before it is decoded).
func (c *call) fail(es impl.Errors) *mcp.CallToolResult {
	return c.r.errorResult(c.ctx, c.name(), c.m, es)
}

// failure is the answer es for the call's request; keep says whether it is
// an outcome to record.
func (c *call) failure(es impl.Errors, keep bool) answer {
	return answer{body: c.r.errorBody(c.ctx, c.name(), c.m, es), isError: true, keep: keep}
}

// handlerError maps a handler error; an Aborted answer gets a hint that says
// what was already tried.
func (r *registry) handlerError(ctx context.Context, wt *boundTool, m proto.Message, err error) (impl.Errors, errClass) {
	es, class := r.classify(ctx, wt.doc.Name, err)
	if status.Code(err) == codes.Aborted && len(es) == 1 {
		hint := "The target changed while writing. Read its current state and retry."
		if n := wt.doc.RetryOnConflict; n > 0 {
			hint = fmt.Sprintf("The target changed while writing; the server retried %d time(s) with fresh values. Read its current state and retry.", n)
		}
		es[0].Suggestions = mergeHint(es[0].Suggestions, hint)
	}
	return es, class
}

// nextSteps turns the tool's next_steps into sentences an agent can act on,
// using each next tool's own description.
func (r *registry) nextSteps(wt *boundTool) []string {
	if p := wt.steps.Load(); p != nil {
		return *p
	}
	out := []string{}
	for _, name := range wt.doc.NextSteps {
		if next, ok := r.tools[name]; ok && lowerFirst(next.doc.Description) != "" {
			out = append(out, fmt.Sprintf("Call %s to %s", name, lowerFirst(next.doc.Description)))
		} else {
			out = append(out, fmt.Sprintf("Call %s next", name))
		}
	}
	if s := r.operationStep(wt.doc); s != "" {
		out = append(out, s)
	}
	out = out[:len(out):len(out)] // shared: an append copies
	wt.steps.Store(&out)
	return out
}

// warnings are remarks on a valid call: today an omitted optional
// description, which makes the entity hard to find later.
func (r *registry) warnings(wt *boundTool, body *impl.Object) []impl.Warning {
	ws := []impl.Warning{}
	if wt.optionalDescription {
		if v := body.Get("description"); v == nil || v.Kind == impl.KindNull || (v.Kind == impl.KindString && v.Str == "") {
			entity := "The request"
			if wt.doc.Result != "" {
				entity = humanize(wt.doc.Result)
			}
			ws = append(ws, impl.Warning{
				Code: "MISSING_DESCRIPTION", Field: "description",
				Message:    entity + " has no description",
				Suggestion: "Add a description for better discoverability",
			})
		}
	}
	return ws
}

func article(noun string) string {
	if noun != "" && (noun[0] == 'a' || noun[0] == 'o') {
		return "an"
	}
	return "a"
}

func hasError(es impl.Errors, field string) bool {
	for _, e := range es {
		if e.Field == field {
			return true
		}
	}
	return false
}

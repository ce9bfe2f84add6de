package runtime

// Entry point: the operations tool, which gets or waits on a long-running
// operation (google.longrunning.Operation) by name, through the handler's
// GetOperation (docs/operations.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// hasOperations reports whether a tool of the service is long-running.
func (st serviceTools) hasOperations() bool {
	for _, name := range st.r.order {
		if st.r.tools[name].doc.Operation != nil {
			return true
		}
	}
	return false
}

// operationsToolSpecs is the operations tool, when a tool of the service is
// long-running and the handler can get operations. Without GetOperation the
// tool is left out (a tool that always fails helps no agent), the
// long-running tools say so and Register warns once.
func (st serviceTools) operationsToolSpecs() []toolSpec {
	name := st.r.svc.OperationsTool
	if name == "" || !st.hasOperations() {
		return nil
	}
	if st.r.ops == nil {
		st.r.cfg.logger.Warn("mcpwrite: the handler does not implement GetOperation, so agents cannot follow the long-running operations its tools start; "+name+" is not registered",
			"service", st.r.svc.Name, "fix", "implement GetOperation(ctx, *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) on the handler, or use New<Service>ClientAdapterWithOperations")
		return nil
	}
	max, _ := st.r.ans.operationBounds()
	return []toolSpec{{&toolcall.Tool{
		Name:  name,
		Title: "Get a long-running operation",
		Description: "Get a long-running operation by name, as a tool of this service answered it, and optionally wait for it to finish. " +
			"Answers done with its response, not done with its metadata (call again to keep waiting), or the operation's error. " +
			"Read-only: changes nothing.",
		InputSchema: schemaJSON(objectSchema(props{
			{"name", stringSchema("The operation's name, as the tool that started it answered it (name).")},
			{"wait", stringSchema(fmt.Sprintf("How long to wait for the operation to finish before answering, as a duration in seconds with an s suffix (e.g. \"30s\"); at most %s. Leave it out to answer at once.", formatSeconds(max)))},
		}, "name")),
		OutputSchema: resultSchemaJSON(objectSchemaOpen(props{
			{"name", typeString},
			{"done", typeBoolean},
			{"metadata", jsonSchema{Type: "object", Description: "The operation's metadata, with its type under @type."}},
			{"response", jsonSchema{Type: "object", Description: "The done operation's response, with its type under @type."}},
		}, "name", "done")),
		Annotations: annotations("Get a long-running operation", schemadoc.Hints{ReadOnly: true, Idempotent: true}),
	}, st.operationsHandler(name)}}
}

// describeOperation tells, in a long-running tool's description, how to
// follow the operation it starts, or that this server cannot.
func (st serviceTools) describeOperation(t *toolcall.Tool, d *schemadoc.Tool) {
	if d.Operation == nil || st.r.svc.OperationsTool == "" {
		return
	}
	note := " Follow it with " + st.r.svc.OperationsTool + "."
	switch {
	case st.r.ops == nil && st.r.cfg.compact:
		return // get_write_schema's operation entry says so
	case st.r.ops == nil:
		note = " This server offers no tool to follow the operation (its handler does not implement GetOperation)."
	}
	// Before the validate tip, after what the operation holds.
	if i := strings.Index(t.Description, " TIP: "); i >= 0 {
		t.Description = t.Description[:i] + note + t.Description[i:]
		return
	}
	t.Description += note
}

// operationsHandler gets the named operation and, with wait, asks again
// every poll until it is done or the wait ends, sending a progress
// notification after each unfinished look when the client sent a
// progress token.
func (st serviceTools) operationsHandler(tool string) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		vals, es := st.r.readArgs(arguments(req), argSpec{name: "name", kind: impl.KindString, required: true}, argSpec{name: "wait", kind: impl.KindString})
		if len(es) > 0 {
			return st.r.ans.errorResult(ctx, tool, nil, es), nil
		}
		name := strings.TrimSpace(vals["name"].Str)
		max, poll := st.r.ans.operationBounds()
		var wait time.Duration
		if v := vals["wait"]; v != nil {
			w, e := parseWait(v.Str, max)
			if e != nil {
				return st.r.ans.errorResult(ctx, tool, nil, impl.Errors{e}), nil
			}
			wait = w
		}
		if name == "" {
			return st.r.ans.errorResult(ctx, tool, nil, impl.Errors{{Code: CodeMissingRequired, Field: "name", Message: "name must name an operation"}}), nil
		}
		rc, _ := st.r.requestContext(ctx, req)
		ctx = WithRequestContext(ctx, rc)
		notify := progressNotifier(req)
		start := time.Now()
		for {
			op, err := st.r.ops(ctx, name)
			if err == nil && (op == nil || !op.ProtoReflect().IsValid()) {
				err = fmt.Errorf("GetOperation(%q) returned no operation", name)
			}
			if err != nil {
				es, _ := st.r.ans.classify(ctx, tool, err)
				return st.r.ans.errorResult(ctx, tool, nil, es), nil
			}
			elapsed := time.Since(start)
			v := readOperation(op)
			if v.done || elapsed >= wait {
				return st.operationAnswer(ctx, tool, v, op), nil
			}
			notify(ctx, elapsed, wait, fmt.Sprintf("operation %s is not done yet", v.name))
			t := time.NewTimer(min(poll, wait-elapsed))
			select {
			case <-ctx.Done():
				t.Stop()
				es, _ := st.r.ans.classify(ctx, tool, ctx.Err())
				return st.r.ans.errorResult(ctx, tool, nil, es), nil
			case <-t.C:
			}
		}
	}
}

// parseWait reads the wait argument: a non-negative number of seconds with
// an s suffix, at most max.
func parseWait(s string, max time.Duration) (time.Duration, *impl.ErrorEntry) {
	bad := func(msg string) *impl.ErrorEntry {
		return &impl.ErrorEntry{Code: CodeConstraintViolation, Field: "wait", Message: msg,
			Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Send a duration in seconds with an s suffix, from \"0s\" to %q.", formatSeconds(max))}}
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "s")
	if strings.HasPrefix(num, "-") {
		return 0, bad(fmt.Sprintf("wait %q is negative", s))
	}
	if !ok || !secondsPattern.MatchString(num) {
		return 0, bad(fmt.Sprintf("wait %q is not a duration in seconds such as \"30s\"", s))
	}
	secs, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, bad(fmt.Sprintf("wait %q is not a duration in seconds such as \"30s\"", s))
	}
	if d := time.Duration(secs * float64(time.Second)); secs <= max.Seconds() {
		return d, nil
	}
	return 0, bad(fmt.Sprintf("wait %q is longer than the %s this server waits at most; call again to keep waiting", s, formatSeconds(max)))
}

// secondsPattern is a wait's number: digits, perhaps with a fraction.
var secondsPattern = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,9})?$`)

// operationView is what the answer reads from a google.longrunning.Operation,
// by field name, so the runtime needs no Go type of it.
type operationView struct {
	name               string
	done               bool
	metadata, response *anypb.Any
	err                *status.Status
}

func readOperation(op proto.Message) operationView {
	m := op.ProtoReflect()
	fs := m.Descriptor().Fields()
	var v operationView
	get := func(name protoreflect.Name) (protoreflect.Value, bool) {
		f := fs.ByName(name)
		if f == nil || !m.Has(f) {
			return protoreflect.Value{}, false
		}
		return m.Get(f), true
	}
	if x, ok := get("name"); ok {
		v.name = x.String()
	}
	if x, ok := get("done"); ok {
		v.done = x.Bool()
	}
	v.metadata = anyOf(get("metadata"))
	v.response = anyOf(get("response"))
	if x, ok := get("error"); ok {
		st := &status.Status{}
		if b, err := proto.Marshal(x.Message().Interface()); err == nil && proto.Unmarshal(b, st) == nil {
			v.err = st
		}
	}
	return v
}

// anyOf is a google.protobuf.Any field's value as *anypb.Any.
func anyOf(x protoreflect.Value, ok bool) *anypb.Any {
	if !ok {
		return nil
	}
	if a, isAny := x.Message().Interface().(*anypb.Any); isAny {
		return a
	}
	return nil
}

// operationAnswer is the answer for an operation looked at: its error
// through the error envelope when it failed, else its name, whether it is
// done, its metadata and, when done, its response.
func (st serviceTools) operationAnswer(ctx context.Context, tool string, v operationView, op proto.Message) *toolcall.Result {
	if v.done && v.err != nil {
		err := grpcstatus.ErrorProto(v.err)
		if v.err.GetCode() == int32(codes.OK) {
			err = fmt.Errorf("operation %s is done with an error of code OK: %s", v.name, v.err.GetMessage())
		}
		es, _ := st.r.ans.classify(ctx, tool, err)
		for _, e := range es {
			addDetail(e, "operation", v.name)
			if c := v.err.GetCode(); c != int32(codes.OK) && e.Code != impl.CodeInternal {
				addDetail(e, "status_code", rpccode.Code(c).String())
			}
		}
		return st.r.ans.errorResult(ctx, tool, op, es)
	}
	o := object{{"success", true}, {"name", v.name}, {"done", v.done}}
	var warns []impl.Warning
	for _, a := range []struct {
		key string
		val *anypb.Any
	}{{"metadata", v.metadata}, {"response", v.response}} {
		if a.val == nil {
			continue
		}
		raw, err := st.r.ans.shape.protojson().Marshal(a.val)
		if err == nil {
			raw, err = compactJSON(raw)
		}
		if err != nil {
			// A type this server does not link: its name, not its bytes.
			warns = append(warns, impl.Warning{Code: "UNKNOWN_TYPE", Message: fmt.Sprintf("the %s's type %s is not known to this server; only its type is shown", a.key, a.val.GetTypeUrl())})
			o = append(o, member{a.key, object{{"@type", a.val.GetTypeUrl()}}})
			continue
		}
		o = append(o, member{a.key, json.RawMessage(raw)})
	}
	suggestions := []string{}
	if !v.done {
		max, _ := st.r.ans.operationBounds()
		suggestions = append(suggestions, fmt.Sprintf("The operation is not done: call %s again with name %q and a wait of up to %s.", tool, v.name, formatSeconds(max)))
	}
	o = append(o, member{"suggestions", suggestions}, member{"warnings", warningsJSON(warns)})
	return toolResult(st.r.ans.render(ctx, tool, o), false)
}

// progressNotifier sends notifications/progress for the call when the
// client sent a progress token and the adapter can notify it. Without a
// token it sends nothing. A notification that cannot be sent does not stop
// the wait.
func progressNotifier(req *toolcall.Request) func(ctx context.Context, done, total time.Duration, msg string) {
	if req == nil || req.ProgressToken == nil || req.Progress == nil {
		return func(context.Context, time.Duration, time.Duration, string) {}
	}
	token, p := req.ProgressToken, req.Progress
	return func(ctx context.Context, done, total time.Duration, msg string) {
		_ = p(ctx, token, done.Seconds(), total.Seconds(), msg)
	}
}

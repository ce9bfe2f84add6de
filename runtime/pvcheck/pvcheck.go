// Package pvcheck runs protovalidate (buf.build/go/protovalidate) as the
// request check of generated tools: after enrichment, the complete request
// is validated with every buf.validate rule, CEL and message rules
// included, and each violation reaches the agent as an envelope entry.
// Generated code wires it in for protos that import
// buf/validate/validate.proto; it lives apart from the runtime so that
// services without buf.validate do not link CEL.
package pvcheck

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// checker is one protovalidate validator, shared by every call.
type checker struct{ v protovalidate.Validator }

// job is one request handed to a check goroutine.
type job struct {
	c    *checker
	req  proto.Message
	vs   []impl.Violation
	err  error
	done chan struct{}
}

var jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

// New builds the validator once, compiling the rules of msgs (the request
// messages) up front so no call pays for it and a rule that does not
// compile fails registration.
func New(msgs ...proto.Message) (impl.RequestChecker, error) {
	v, err := protovalidate.New(protovalidate.WithMessages(msgs...), protovalidate.WithDisableLazy())
	if err != nil {
		return nil, err
	}
	return &checker{v: v}, nil
}

// checkJobs hands requests to the check goroutines, one per processor,
// shared by every checker of the process and started with the first.
var checkJobs = sync.OnceValue(func() chan *job {
	ch := make(chan *job)
	for range max(2, goruntime.GOMAXPROCS(0)) {
		go serve(ch)
	}
	return ch
})

// serve runs the checks handed to it. A tool call runs on a goroutine
// made for it, whose stack would grow (copied, frame by frame) to hold
// protovalidate's evaluation; the stack of a check goroutine has grown
// once and stays grown, so a check costs a hand-over instead.
func serve(ch chan *job) {
	for j := range ch {
		j.vs, j.err = j.c.check(j.req)
		j.done <- struct{}{}
	}
}

// Check validates req and returns its violations: on a check goroutine
// when one is free, else on the caller's.
func (c *checker) Check(req proto.Message) ([]impl.Violation, error) {
	j := jobs.Get().(*job)
	j.c, j.req = c, req
	select {
	case checkJobs() <- j:
		<-j.done
	default:
		j.vs, j.err = c.check(req)
	}
	vs, err := j.vs, j.err
	*j = job{done: j.done}
	jobs.Put(j)
	return vs, err
}

// check validates req; a panic in the validator is an error, not a crash
// of the check goroutine.
func (c *checker) check(req proto.Message) (vs []impl.Violation, err error) {
	defer func() {
		if p := recover(); p != nil {
			vs, err = nil, fmt.Errorf("protovalidate panicked: %v", p)
		}
	}()
	err = c.v.Validate(req)
	if err == nil {
		return nil, nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := make([]impl.Violation, 0, len(ve.Violations))
	for _, v := range ve.Violations {
		p := v.Proto
		out = append(out, impl.Violation{Path: steps(p.GetField()), RuleID: p.GetRuleId(), Message: p.GetMessage()})
	}
	return out, nil
}

// steps turns a protovalidate field path into runtime path steps.
func steps(fp *validate.FieldPath) []impl.PathStep {
	var out []impl.PathStep
	for _, e := range fp.GetElements() {
		s := impl.PathStep{Field: e.GetFieldName()}
		switch sub := e.GetSubscript().(type) {
		case *validate.FieldPathElement_Index:
			s.Subscript = "[" + strconv.FormatUint(sub.Index, 10) + "]"
		case *validate.FieldPathElement_StringKey:
			s.Subscript = "[" + strconv.Quote(sub.StringKey) + "]"
		case *validate.FieldPathElement_IntKey:
			s.Subscript = "[" + strconv.FormatInt(sub.IntKey, 10) + "]"
		case *validate.FieldPathElement_UintKey:
			s.Subscript = "[" + strconv.FormatUint(sub.UintKey, 10) + "]"
		case *validate.FieldPathElement_BoolKey:
			s.Subscript = "[" + strconv.FormatBool(sub.BoolKey) + "]"
		}
		out = append(out, s)
	}
	return out
}

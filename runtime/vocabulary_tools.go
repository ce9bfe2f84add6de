package runtime

// Entry point: the vocabulary discovery tools and their listing.

import (
	"context"
	"fmt"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// vocabularyListing is what get_write_schema adds for a tool with
// vocabulary fields: each field with its vocabulary's values for the
// caller's tenant.
func (st serviceTools) vocabularyListing(ctx context.Context, fields []schemadoc.VocabularyField, tenant string) ([]object, error) {
	out := make([]object, 0, len(fields))
	for _, f := range fields {
		v := st.r.cfg.vocabs[f.Vocabulary]
		if v == nil {
			return nil, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", f.Vocabulary)
		}
		s, err := v.load(ctx, tenant)
		if err != nil {
			return nil, (&impl.Call{}).ResolverError(f.Field, err)
		}
		out = append(out, object{{"field", f.Field}, {"vocabulary", f.Vocabulary}, {"values", listValues(s)}})
	}
	return out, nil
}

// listValues renders a tenant's values for the agent.
func listValues(s *vocabSet) []object {
	out := make([]object, 0, len(s.values))
	for _, v := range s.values {
		o := object{{"value", v.Value}}
		if len(v.Aliases) > 0 {
			o = append(o, member{"aliases", v.Aliases})
		}
		if v.Description != "" {
			o = append(o, member{"description", v.Description})
		}
		out = append(out, o)
	}
	return out
}

// vocabularyToolSpecs are the read-only tools listing a live vocabulary's
// values for the caller's tenant.
func (st serviceTools) vocabularyToolSpecs() []toolSpec {
	var specs []toolSpec
	for _, t := range st.r.svc.VocabularyTools {
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:        t.Tool,
			Description: t.Description,
			InputSchema: schemaJSON(objectSchema(nil)),
			OutputSchema: resultSchemaJSON(objectSchema(props{
				{"vocabulary", typeString},
				{"values", arraySchema(objectSchema(props{
					{"value", typeString}, {"aliases", arraySchema(typeString)}, {"description", typeString},
				}, "value"))},
			}, "vocabulary", "values")),
			Annotations: annotations("", schemadoc.Hints{ReadOnly: true, Idempotent: true}),
		}, st.vocabularyHandler(t)})
	}
	return specs
}

// vocabularyHandler lists one vocabulary's values for the caller's tenant.
func (st serviceTools) vocabularyHandler(t schemadoc.VocabularyTool) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		if _, es := st.r.readArgs(arguments(req)); len(es) > 0 {
			return st.r.ans.errorResult(ctx, t.Tool, nil, es), nil
		}
		rc, _ := st.r.requestContext(ctx, req)
		ctx = WithRequestContext(ctx, rc)
		v := st.r.cfg.vocabs[t.Vocabulary]
		if v == nil {
			es, _ := st.r.ans.classify(ctx, t.Tool, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", t.Vocabulary))
			return st.r.ans.errorResult(ctx, t.Tool, nil, es), nil
		}
		s, err := v.load(ctx, rc.TenantID)
		if err != nil {
			es, _ := st.r.ans.classify(ctx, t.Tool, (&impl.Call{}).ResolverError("", err))
			return st.r.ans.errorResult(ctx, t.Tool, nil, es), nil
		}
		o := object{{"vocabulary", t.Vocabulary}, {"values", listValues(s)}}
		return toolResult(st.r.ans.render(ctx, t.Tool, o), false), nil
	}
}

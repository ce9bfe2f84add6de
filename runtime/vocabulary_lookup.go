package runtime

// The vocabulary stage: checking at registration that every vocabulary a
// tool takes is configured, and looking values up for one call's tenant.

import (
	"context"
	"fmt"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// checkVocabularies fails when a tool takes values of a vocabulary that no
// WithVocabulary serves.
func (r *registry) checkVocabularies() error {
	if r.cfg.vocabErr != nil {
		return r.cfg.vocabErr
	}
	for _, name := range r.order {
		for _, f := range r.tools[name].doc.Vocabularies {
			if r.cfg.vocabs[f.Vocabulary] == nil {
				return fmt.Errorf("tool %q: field %q takes values of the vocabulary %q, which no option serves; pass runtime.WithVocabulary(runtime.NewVocabulary(%q, fn)) to Register",
					name, f.Field, f.Vocabulary, f.Vocabulary)
			}
		}
	}
	return nil
}

// listedBy names the tool that lists vocabulary name: its discovery tool,
// else the schema tool.
func (r *registry) listedBy(name string) string {
	for _, t := range r.svc.VocabularyTools {
		if t.Vocabulary == name {
			return t.Tool
		}
	}
	return r.svc.SchemaTool
}

// callVocabularies are the vocabularies of one call: each is loaded for
// the call's tenant at most once.
type callVocabularies struct {
	r      *registry
	ctx    context.Context
	tenant string
	sets   map[string]*vocabSet
	// failure is the first resolver error, answered instead of the
	// decoder's problems.
	failure error
}

// newCallVocabularies binds the registry's vocabularies to a call.
// Without vocabularies it is nil: Register refused any tool that needs one.
func (r *registry) newCallVocabularies(ctx context.Context, rc RequestContext) *callVocabularies {
	if len(r.cfg.vocabs) == 0 {
		return nil
	}
	return &callVocabularies{r: r, ctx: ctx, tenant: rc.TenantID}
}

func (cv *callVocabularies) set(name string) (*vocabSet, error) {
	if s, ok := cv.sets[name]; ok {
		return s, nil
	}
	v := cv.r.cfg.vocabs[name]
	if v == nil {
		return nil, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", name)
	}
	s, err := v.load(cv.ctx, cv.tenant)
	if err != nil {
		return nil, err
	}
	if cv.sets == nil {
		cv.sets = map[string]*vocabSet{}
	}
	cv.sets[name] = s
	return s, nil
}

// LookupVocabulary implements impl.VocabularyLookup for
// Decoder.Vocabulary: a value or one of its aliases (exactly, else ignoring
// case and separators) is returned as the canonical value. Anything else is
// INVALID_ENUM_VALUE with did_you_mean over the tenant's values and the
// values as valid_values. A vocabulary that cannot be read is kept as the
// call's failure, answered instead of the decoder's problems.
func (cv *callVocabularies) LookupVocabulary(d *impl.Decoder, key, name, s string) (string, *impl.ErrorEntry, bool) {
	set, err := cv.set(name)
	if err != nil {
		if cv.failure == nil {
			cv.failure = (&impl.Call{}).ResolverError(d.Path(key), err)
		}
		return "", nil, false
	}
	if c, ok := set.lookup(s); ok {
		return c, nil, true
	}
	field := key
	if field == "" {
		field = d.Path("")
	}
	sg := &impl.Suggestions{
		ValidValues: impl.BoundList(set.listed),
		Hint:        fmt.Sprintf("the %s values of this tenant; %s lists them", name, cv.r.listedBy(name)),
	}
	if len(set.listed) > impl.MaxListed {
		sg.Hint += fmt.Sprintf(" (showing %d of %d values)", impl.MaxListed, len(set.listed))
	}
	if len(set.listed) == 0 {
		sg.Hint = fmt.Sprintf("this tenant has no %s values yet", name)
	}
	sg.DidYouMean = set.names.Closest(s, impl.MaxDidYouMean)
	msg := fmt.Sprintf("invalid value %s for %s", impl.Excerpt(s), field)
	if len(sg.DidYouMean) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", sg.DidYouMean[0])
	}
	return "", &impl.ErrorEntry{Code: impl.CodeInvalidEnumValue, Message: msg, Suggestions: sg}, false
}

// lookup is cv as the decoder's VocabularyLookup: nil when cv is.
func (cv *callVocabularies) lookup() impl.VocabularyLookup {
	if cv == nil {
		return nil
	}
	return cv
}

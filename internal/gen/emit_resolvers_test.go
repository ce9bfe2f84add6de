package gen

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"
)

// Two request types of different Go packages with one Go name would give
// one typed method two signatures: that pair keeps the contract form only,
// and every other pair keeps its typed form.
func TestTypedResolversSkipAGoNameTwoRequestTypesShare(t *testing.T) {
	owner := &resolverModel{name: "owner", method: "ResolveOwner"}
	req := func(pkg, name string) *messageModel {
		return &messageModel{
			proto:        &protogen.Message{GoIdent: protogen.GoIdent{GoName: name, GoImportPath: protogen.GoImportPath(pkg)}},
			hasResolvers: true,
			fields:       []*fieldModel{{resolver: owner}},
		}
	}
	shared := req("example.com/a", "Move")
	sm := &serviceModel{
		resolvers: []*resolverModel{owner},
		tools: []*toolModel{
			{input: shared},
			{input: shared}, // a second tool with the same request: one pair
			{input: req("example.com/b", "Move")},
			{input: req("example.com/a", "Copy")},
		},
	}
	var got []string
	for _, p := range typedPairs(sm) {
		got = append(got, typedResolverMethod(p.r, p.req))
	}
	if want := []string{"ResolveOwnerForCopy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("typed methods = %v, want %v", got, want)
	}
}

package domain

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// layerHints say, per layer, how its type names read (the seed's hint for
// the application layer, and the same for the others).
var layerHints = map[string]string{
	"Strategy":    "Strategy layer types are Capability, Resource, CourseOfAction and ValueStream",
	"Business":    "Business layer types start with 'Business'",
	"Application": "Application layer types start with 'Application' or 'Data'",
	"Technology":  "Technology layer types are Node, Device and SystemSoftware",
}

// vocabulary is what the generated schema document says about types: the
// element types of each layer and the valid pairs of each relationship
// type, in document order. The document is the one the tools serve, so
// the answers never disagree with getElementTypes and getRelationshipTypes.
type vocabulary struct {
	layerOf  map[string]string   // element type -> layer
	layers   map[string][]string // layer -> element types
	relTypes []string
	pairs    map[string][]schemadoc.Pair // relationship type -> valid pairs
}

var vocab = sync.OnceValue(func() *vocabulary {
	v := &vocabulary{layerOf: map[string]string{}, layers: map[string][]string{}, pairs: map[string][]schemadoc.Pair{}}
	var doc schemadoc.Document
	if err := json.Unmarshal(archimatev1mcpwrite.NewArchitectureService(nil).Doc, &doc); err != nil {
		panic(fmt.Sprintf("archimate: generated schema document: %v", err))
	}
	for _, s := range doc.Services {
		for _, d := range s.Discovery {
			switch d.Tool {
			case "getElementTypes":
				for _, val := range d.Values {
					v.layerOf[val.Value] = val.Group
					v.layers[val.Group] = append(v.layers[val.Group], val.Value)
				}
			case "getRelationshipTypes":
				for _, val := range d.Values {
					v.relTypes = append(v.relTypes, val.Value)
					v.pairs[val.Value] = val.ValidPairs
				}
			}
		}
	}
	return v
})

// between lists the relationship types valid from source to target types.
func (v *vocabulary) between(source, target string) []string {
	out := []string{}
	for _, t := range v.relTypes {
		for _, p := range v.pairs[t] {
			if p.Source == source && p.Target == target {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

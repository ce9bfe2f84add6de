package domain

import (
	"strings"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// relationshipOrder lists relationship types in the order suggestions use.
var relationshipOrder = []archimatev1.RelationshipType{
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_SERVING,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_AGGREGATION,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_ASSIGNMENT,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_FLOW,
	archimatev1.RelationshipType_RELATIONSHIP_TYPE_TRIGGERING,
}

// allowed is the (abridged) ArchiMate relationship table: which relationship
// may connect a source type to a target type.
func allowed(t archimatev1.RelationshipType, src, dst archimatev1.ElementType) bool {
	ls, ld := layerOf(src), layerOf(dst)
	switch t {
	case archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION, archimatev1.RelationshipType_RELATIONSHIP_TYPE_AGGREGATION:
		return src == dst
	case archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION:
		// Implementation realizes specification: never from strategy down.
		return ls >= ld && src != dst && ls != archimatev1.Layer_LAYER_STRATEGY
	case archimatev1.RelationshipType_RELATIONSHIP_TYPE_SERVING:
		return ls >= ld || ls == ld
	case archimatev1.RelationshipType_RELATIONSHIP_TYPE_ASSIGNMENT:
		return src == archimatev1.ElementType_ELEMENT_TYPE_BUSINESS_ACTOR || src == archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT || src == archimatev1.ElementType_ELEMENT_TYPE_NODE || ls == archimatev1.Layer_LAYER_STRATEGY
	case archimatev1.RelationshipType_RELATIONSHIP_TYPE_FLOW, archimatev1.RelationshipType_RELATIONSHIP_TYPE_TRIGGERING:
		return ls == ld
	}
	return false
}

func layerOf(t archimatev1.ElementType) archimatev1.Layer {
	switch {
	case t >= archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY && t <= archimatev1.ElementType_ELEMENT_TYPE_VALUE_STREAM:
		return archimatev1.Layer_LAYER_STRATEGY
	case t <= archimatev1.ElementType_ELEMENT_TYPE_BUSINESS_ACTOR:
		return archimatev1.Layer_LAYER_BUSINESS
	case t <= archimatev1.ElementType_ELEMENT_TYPE_DATA_OBJECT:
		return archimatev1.Layer_LAYER_APPLICATION
	}
	return archimatev1.Layer_LAYER_TECHNOLOGY
}

// aliasOf renders an element type as agents spell it: APPLICATION_COMPONENT -> ApplicationComponent.
func aliasOf(t archimatev1.ElementType) string {
	return pascal(strings.TrimPrefix(t.String(), "ELEMENT_TYPE_"))
}

func relAlias(t archimatev1.RelationshipType) string {
	return pascal(strings.TrimPrefix(t.String(), "RELATIONSHIP_TYPE_"))
}

func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

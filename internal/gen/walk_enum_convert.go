package gen

import (
	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// The walk converts each annotation enum into the model's own enum
// (model_enums.go) here, once, by name: a value the plugin does not know
// (annotations newer than the plugin) converts to false, which the walk
// reports.

func kindOf(k mcpwritev1.ToolRules_Kind) (toolKind, bool) {
	return convertEnum[toolKind](toolKindNames, mcpwritev1.ToolRules_Kind_name, int32(k))
}

func classOf(c mcpwritev1.ToolRules_Classification) (toolClass, bool) {
	return convertEnum[toolClass](toolClassNames, mcpwritev1.ToolRules_Classification_name, int32(c))
}

func confirmOf(c mcpwritev1.ToolRules_Confirmation) (confirmMode, bool) {
	return convertEnum[confirmMode](confirmModeNames, mcpwritev1.ToolRules_Confirmation_name, int32(c))
}

func fallbackOf(f mcpwritev1.ToolRules_ElicitFallback) (fallbackMode, bool) {
	return convertEnum[fallbackMode](fallbackModeNames, mcpwritev1.ToolRules_ElicitFallback_name, int32(f))
}

func namingOf(n mcpwritev1.ServiceRules_ToolNaming) (toolNaming, bool) {
	return convertEnum[toolNaming](toolNamingNames, mcpwritev1.ServiceRules_ToolNaming_name, int32(n))
}

func styleOf(s mcpwritev1.EnumAlias_Style) (aliasStyle, bool) {
	return convertEnum[aliasStyle](aliasStyleNames, mcpwritev1.EnumAlias_Style_name, int32(s))
}

// convertEnum is the model value named as the annotation value n is
// named, false when the annotations package or the model lacks the name.
func convertEnum[T ~int](names []string, annotationNames map[int32]string, n int32) (T, bool) {
	name, ok := annotationNames[n]
	if !ok {
		return 0, false
	}
	for i, s := range names {
		if s == name {
			return T(i), true
		}
	}
	return 0, false
}

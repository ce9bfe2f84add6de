package domain

import (
	"strings"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// aliasOf renders an element type as agents spell it: APPLICATION_COMPONENT -> ApplicationComponent.
func aliasOf(t archimatev1.ElementType) string {
	return pascal(strings.TrimPrefix(t.String(), "ELEMENT_TYPE_"))
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

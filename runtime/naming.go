package runtime

import (
	"fmt"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// maxToolName is the longest tool name registered: the bound the strictest
// MCP clients and model vendors apply (64), tighter than the protocol's 128.
const maxToolName = 64

// validToolName reports why name is not a portable tool name: 1 to 64
// characters of [A-Za-z0-9_-].
func validToolName(name string) error {
	if name == "" {
		return fmt.Errorf("tool name is empty")
	}
	if len(name) > maxToolName {
		return fmt.Errorf("tool name %q has %d characters, at most %d are allowed", name, len(name), maxToolName)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !portableNameRune(r) }); i >= 0 {
		return fmt.Errorf("tool name %q has %q at byte %d; use only letters, digits, '_' and '-'", name, name[i:i+1], i)
	}
	return nil
}

func portableNameRune(r rune) bool {
	return r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// applyToolNames renames every tool of a service document with the
// configured prefix and suffix; bindings are matched by the original
// names (renamed). It fails on a prefix or suffix that could not make a
// portable name, and on a name that becomes too long.
func (c *config) applyToolNames(sd *schemadoc.Service) error {
	for _, part := range []struct{ what, s string }{{"prefix", c.namePrefix}, {"suffix", c.nameSuffix}} {
		if i := strings.IndexFunc(part.s, func(r rune) bool { return !portableNameRune(r) }); i >= 0 {
			return fmt.Errorf("WithToolNames: %s %q has %q at byte %d; use only letters, digits, '_' and '-'", part.what, part.s, part.s[i:i+1], i)
		}
	}
	if c.namePrefix == "" && c.nameSuffix == "" {
		return nil
	}
	rename := func(p *string) {
		if *p != "" {
			*p = c.toolName(*p)
		}
	}
	for _, p := range []*string{&sd.ValidateTool, &sd.SchemaTool, &sd.ApplyTool, &sd.DiscardTool, &sd.OperationsTool} {
		rename(p)
	}
	for i := range sd.Tools {
		t := &sd.Tools[i]
		rename(&t.Name)
		for j := range t.NextSteps {
			rename(&t.NextSteps[j])
		}
	}
	for i := range sd.Discovery {
		rename(&sd.Discovery[i].Tool)
	}
	for i := range sd.VocabularyTools {
		rename(&sd.VocabularyTools[i].Tool)
	}
	for i := range sd.Resources {
		rename(&sd.Resources[i].Tool)
		rename(&sd.Resources[i].Name)
	}
	return nil
}

// toolName is a generated tool name as registered.
func (c *config) toolName(name string) string { return c.namePrefix + name + c.nameSuffix }

// checkNames refuses a registration whose tool names are not portable or
// are used twice, within the service or on the server.
func checkNames(specs []toolSpec) error {
	seen := map[string]bool{}
	for _, sp := range specs {
		if err := validToolName(sp.tool.Name); err != nil {
			return fmt.Errorf("%w (a shorter runtime.WithToolNames prefix or suffix, or the service's tool_prefix, fixes it)", err)
		}
		if seen[sp.tool.Name] {
			return fmt.Errorf("tool name %q is used twice", sp.tool.Name)
		}
		seen[sp.tool.Name] = true
	}
	return nil
}

package gen

import "strconv"

// The model's own enums: the walk converts the annotations' enums into
// these once (walk_enum_convert.go), so the stages after it never read the
// annotations package. Each value's String is the name the annotations
// give it, which tool documents, review tables and messages print; the
// zero value is the unset one, which the walk resolves away.

// toolKind is what a tool does.
type toolKind int

const (
	kindUnset toolKind = iota
	kindCreate
	kindUpdate
	kindDelete
	kindAction
	kindRead
)

var toolKindNames = []string{"KIND_UNSPECIFIED", "CREATE", "UPDATE", "DELETE", "ACTION", "READ"}

func (k toolKind) String() string { return enumName(toolKindNames, int(k)) }

// toolClass is how a tool's writes change data.
type toolClass int

const (
	classUnset toolClass = iota
	classSafeCreate
	classSafeUpdate
	classDestructiveUpdate
	classDestructiveDelete
	classReadOnly
)

var toolClassNames = []string{"CLASSIFICATION_UNSPECIFIED", "SAFE_CREATE", "SAFE_UPDATE", "DESTRUCTIVE_UPDATE", "DESTRUCTIVE_DELETE", "READ_ONLY"}

func (c toolClass) String() string { return enumName(toolClassNames, int(c)) }

// confirmMode is how a write is confirmed before it runs.
type confirmMode int

const (
	confirmUnset confirmMode = iota
	confirmDirect
	confirmProposal
	confirmElicit
)

var confirmModeNames = []string{"CONFIRMATION_UNSPECIFIED", "DIRECT", "PROPOSAL", "ELICIT"}

func (c confirmMode) String() string { return enumName(confirmModeNames, int(c)) }

// fallbackMode is what an elicitation the client cannot show becomes.
type fallbackMode int

const (
	fallbackUnset fallbackMode = iota
	fallbackPropose
	fallbackRefuse
)

var fallbackModeNames = []string{"ELICIT_FALLBACK_UNSPECIFIED", "PROPOSE", "REFUSE"}

func (f fallbackMode) String() string { return enumName(fallbackModeNames, int(f)) }

// toolNaming is how a service spells the names of its tools.
type toolNaming int

const (
	namingUnset toolNaming = iota
	namingSnake
	namingCamel
	namingAsIs
)

var toolNamingNames = []string{"TOOL_NAMING_UNSPECIFIED", "SNAKE_CASE", "CAMEL_CASE", "AS_IS"}

func (n toolNaming) String() string { return enumName(toolNamingNames, int(n)) }

// aliasStyle is how an alias table spells enum values.
type aliasStyle int

const (
	styleUnset aliasStyle = iota
	stylePascal
	styleSnake
	styleKebab
)

var aliasStyleNames = []string{"STYLE_UNSPECIFIED", "PASCAL", "SNAKE", "KEBAB"}

func (s aliasStyle) String() string { return enumName(aliasStyleNames, int(s)) }

// enumName is names[v], or v's number when it has no name.
func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return strconv.Itoa(v)
}

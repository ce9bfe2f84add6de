package gen

import (
	"path"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// buildFile returns nil when the file exposes no method.
func buildFile(plugin *protogen.Plugin, f *protogen.File, probs *problems) *fileModel {
	pkg := string(f.GoPackageName) + "mcpwrite"
	dir, base := path.Split(f.GeneratedFilenamePrefix)
	fm := &fileModel{
		proto:      f,
		pkgName:    pkg,
		goPath:     dir + pkg + "/" + base + ".mcpwrite.go",
		jsonPath:   dir + pkg + "/" + base + ".mcpwrite.json",
		jsonBase:   base + ".mcpwrite.json",
		firstTable: map[protoreflect.FullName]*enumTable{},
	}
	b := &builder{
		plugin:   plugin,
		file:     fm,
		probs:    probs,
		messages: map[protoreflect.FullName]*messageModel{},
		tables:   map[string]*enumTable{},
		enums:    map[protoreflect.FullName]*protogen.Enum{},
		pairs:    map[*enumTable]*pairRule{},
	}
	for _, pf := range plugin.Files {
		b.indexEnums(pf.Enums, pf.Messages)
	}
	if !b.fieldNaming(f) {
		return nil
	}
	for _, s := range f.Services {
		if sm := b.service(s); sm != nil {
			fm.services = append(fm.services, sm)
		}
	}
	if len(fm.services) == 0 {
		return nil
	}
	b.checkItemKeys()
	return fm
}

// fieldNaming sets the file's field naming from its services' field_naming.
// Services of one file share its message models, so they must agree.
func (b *builder) fieldNaming(f *protogen.File) bool {
	var first *protogen.Service
	naming := mcpwritev1.ServiceRules_FIELD_NAMING_UNSPECIFIED
	for _, s := range f.Services {
		n := ext[*mcpwritev1.ServiceRules](s.Desc.Options(), mcpwritev1.E_Service).GetFieldNaming()
		if _, ok := mcpwritev1.ServiceRules_FieldNaming_name[int32(n)]; !ok {
			b.probs.servicef(s, "unknown field_naming %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", n)
			return false
		}
		if n == mcpwritev1.ServiceRules_FIELD_NAMING_UNSPECIFIED {
			n = mcpwritev1.ServiceRules_PROTO_NAME
		}
		if first == nil {
			first, naming = s, n
			continue
		}
		if n != naming {
			b.probs.servicef(s, "field_naming %s differs from service %s's %s in the same file; services of a file share its messages, so give them the same field_naming or move one to a file of its own", n, first.Desc.Name(), naming)
			return false
		}
	}
	b.jsonNames = naming == mcpwritev1.ServiceRules_JSON_NAME
	return true
}

func (b *builder) indexEnums(es []*protogen.Enum, ms []*protogen.Message) {
	for _, e := range es {
		b.enums[e.Desc.FullName()] = e
	}
	for _, m := range ms {
		b.indexEnums(m.Enums, m.Messages)
	}
}

func (b *builder) service(s *protogen.Service) *serviceModel {
	rules := ext[*mcpwritev1.ServiceRules](s.Desc.Options(), mcpwritev1.E_Service)
	sm := &serviceModel{proto: s, emitZeroValues: rules.GetEmitZeroValues(), jsonNames: b.jsonNames}
	_, exposeKnown := mcpwritev1.ServiceRules_Expose_name[int32(rules.GetExpose())]
	var namingKnown, confirmKnown, fallbackKnown bool
	sm.naming, namingKnown = namingOf(rules.GetToolNaming())
	sm.defaultConfirmation, confirmKnown = confirmOf(rules.GetDefaultConfirmation())
	sm.defaultElicitFallback, fallbackKnown = fallbackOf(rules.GetDefaultElicitFallback())
	for _, c := range []struct {
		what  string
		n     int32
		known bool
	}{
		{"expose", int32(rules.GetExpose()), exposeKnown},
		{"tool_naming", int32(rules.GetToolNaming()), namingKnown},
		{"default_confirmation", int32(rules.GetDefaultConfirmation()), confirmKnown},
		{"default_elicit_fallback", int32(rules.GetDefaultElicitFallback()), fallbackKnown},
	} {
		if !c.known {
			b.probs.servicef(s, "unknown %s %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", c.what, c.n)
			return nil
		}
	}
	if sm.naming == namingUnset {
		sm.naming = namingSnake
	}
	if p := rules.GetToolPrefix(); p != "" && !isToolName(p) {
		b.probs.servicef(s, "tool_prefix %q must match ^[a-zA-Z0-9_-]+$; e.g. option (mcpwrite.v1.service) = {tool_prefix: %q}", p, acceptedName(p))
	}
	all := rules.GetExpose() == mcpwritev1.ServiceRules_ALL
	for _, m := range s.Methods {
		tr := ext[*mcpwritev1.ToolRules](m.Desc.Options(), mcpwritev1.E_Tool)
		streaming := m.Desc.IsStreamingClient() || m.Desc.IsStreamingServer()
		if tr == nil && !all {
			continue
		}
		if streaming {
			if tr != nil && !tr.GetOmit() {
				b.probs.methodf(m, "streaming methods cannot be tools; remove the (mcpwrite.v1.tool) option")
			}
			continue
		}
		if tr.GetOmit() {
			continue
		}
		// A method expose: ALL exposes without a tool option is left out,
		// with a warning, when it is one no agent should call or when the
		// plugin cannot make it a tool (walk_leaveout.go); the rest is built.
		var mk buildMark
		if tr == nil {
			if why := leftOutByDefault(m); why != "" {
				b.leaveOutByDefault(m, why)
				continue
			}
			mk = b.markBuild(sm)
		}
		tm := b.tool(sm, m, tr)
		if tr == nil && b.tookBack(sm, m, mk) {
			continue
		}
		if tm != nil {
			sm.tools = append(sm.tools, tm)
		}
	}
	if len(sm.tools) == 0 {
		return nil
	}
	sm.outputEnums = map[protoreflect.FullName]*enumTable{}
	seen := map[protoreflect.FullName]bool{}
	for _, t := range sm.tools {
		b.outputEnums(sm, t.method.Input, seen)
		b.outputEnums(sm, t.method.Output, seen)
	}
	b.zeroValueFields(sm)
	b.serviceTools(sm)
	b.checkToolNames(sm)
	b.resourceTemplates(sm)
	return sm
}

func (b *builder) serviceTools(sm *serviceModel) {
	r := serviceRules(sm)
	pick := func(set, def string, omit bool) string {
		if omit {
			return ""
		}
		if set != "" {
			return set
		}
		return toolName(sm.naming, r.GetToolPrefix(), def)
	}
	canPropose, writes := false, false
	for _, t := range sm.tools {
		if t.confirmation != confirmDirect {
			canPropose = true
		}
		writes = writes || !t.isRead()
	}
	// validate_write checks writes only: a service of reads has none.
	sm.validateTool = pick(r.GetValidateTool(), "validate_write", r.GetOmitValidateTool() || !writes)
	sm.schemaTool = pick(r.GetSchemaTool(), "get_write_schema", r.GetOmitSchemaTool())
	sm.applyTool = pick(r.GetApplyTool(), "apply_proposal", r.GetOmitApplyTool() || !canPropose)
	sm.discardTool = pick(r.GetDiscardTool(), "discard_proposal", r.GetOmitApplyTool() || !canPropose)
	sm.operationsTool = operationsTool(sm)
	// Discovery tools for every discoverable enum an input offers.
	seen := map[protoreflect.FullName]bool{}
	var visit func(m *messageModel)
	visitedMsg := map[*messageModel]bool{}
	visit = func(m *messageModel) {
		if visitedMsg[m] {
			return
		}
		visitedMsg[m] = true
		for _, f := range m.fields {
			if f.enumTable != nil && f.exposed() {
				e := f.enumTable.enum
				er := ext[*mcpwritev1.EnumRules](e.Desc.Options(), mcpwritev1.E_Enum)
				if er.GetDiscovery() && !seen[e.Desc.FullName()] {
					seen[e.Desc.FullName()] = true
					sm.discovery = append(sm.discovery, b.discovery(sm, f.enumTable, er))
				}
			}
			if f.child != nil {
				visit(f.child)
			}
		}
	}
	for _, t := range sm.tools {
		visit(t.input)
	}
	b.vocabularyTools(sm)
}

func (b *builder) discovery(sm *serviceModel, t *enumTable, er *mcpwritev1.EnumRules) *discoveryModel {
	name := er.GetDiscoveryTool()
	if name == "" {
		name = toolName(sm.naming, serviceRules(sm).GetToolPrefix(), "get_"+naming.Snake(naming.Words(plural(string(t.enum.Desc.Name())))))
	}
	d := &discoveryModel{tool: name, table: t}
	d.desc = "List the valid " + strings.Join(naming.Words(plural(string(t.enum.Desc.Name()))), " ")
	if g := er.GetGroupBy(); g != "" {
		ge, ok := b.enums[protoreflect.FullName(g)]
		if !ok {
			b.probs.enumf(t.enum, "group_by %q is not an enum known to this build; import the file that declares it and write its full name, package.Enum", g)
			return d
		}
		d.groupBy = ge
		d.desc += ", grouped by " + strings.Join(naming.Words(string(ge.Desc.Name())), " ")
		for _, v := range t.values {
			if impliedIn(v.value, ge) == nil {
				b.probs.enumf(t.enum, "value %s: group_by %s needs an implies entry naming one of its values, e.g. [(mcpwrite.v1.value).implies = %s]", v.value.Desc.Name(), g, impliesExample(ge))
			}
		}
	}
	d.pairs = b.pairRuleFor(t)
	if d.pairs != nil {
		d.desc += ", with the source and target types each may connect"
	}
	d.desc += "."
	return d
}

func (b *builder) checkToolNames(sm *serviceModel) {
	names := map[string]string{}
	claim := func(name, what string) {
		if name == "" {
			return
		}
		switch {
		case len(name) > 64 && isToolName(name[:64]):
			// Refused, not shortened: agents, next_steps and proposals name
			// tools by the name the author can read in the proto.
			b.probs.servicef(sm.proto, "tool name %q (%s) has %d characters, at most 64 are allowed; name it with a shorter name option ((mcpwrite.v1.tool).name for a method) or a shorter tool_prefix", name, what, len(name))
		case !isToolName(name):
			b.probs.servicef(sm.proto, "tool name %q (%s) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. %q", name, what, acceptedName(name))
		}
		if prev, ok := names[name]; ok {
			b.probs.servicef(sm.proto, "tool name %q is used by both %s and %s; give one a name of its own, e.g. option (mcpwrite.v1.tool) = {name: %q}", name, prev, what, name+"_2")
			return
		}
		names[name] = what
	}
	for _, t := range sm.tools {
		claim(t.name, "method "+string(t.method.Desc.Name()))
	}
	claim(sm.validateTool, "the validate tool")
	claim(sm.schemaTool, "the schema tool")
	claim(sm.applyTool, "the apply tool")
	claim(sm.discardTool, "the discard tool")
	claim(sm.operationsTool, "the operations tool")
	for _, d := range sm.discovery {
		claim(d.tool, "the discovery tool of "+string(d.table.enum.Desc.FullName()))
	}
	for _, v := range sm.vocabTools {
		claim(v.tool, "the discovery tool of vocabulary "+v.vocabulary)
	}
	for _, t := range sm.tools {
		for _, n := range t.nextSteps {
			if _, ok := names[n]; !ok {
				b.probs.methodf(t.method, "next_steps names unknown tool %q; name a tool of service %s (%s)", n, sm.proto.Desc.Name(), toolNames(sm))
			}
		}
	}
}

// tool resolves one method's tool: its texts, kind and classification,
// then a read's or a write's rules, then what both share.
func (b *builder) tool(sm *serviceModel, m *protogen.Method, tr *mcpwritev1.ToolRules) *toolModel {
	t := &toolModel{svc: sm, method: m, operation: operationOf(m)}
	toolTexts(t, tr)
	if !b.toolKind(t, tr) {
		return nil
	}
	if t.kind == kindRead {
		return b.readTool(t)
	}
	if !b.toolConfirmation(t, tr) {
		return nil
	}
	toolHints(t, tr)
	b.toolRetry(t, tr)
	return b.toolBody(t)
}

// toolTexts sets the tool's name, title and description, each from the
// tool option or else from the method.
func toolTexts(t *toolModel, tr *mcpwritev1.ToolRules) {
	sm, m := t.svc, t.method
	t.name = tr.GetName()
	if t.name == "" {
		t.name = toolName(sm.naming, serviceRules(sm).GetToolPrefix(), string(m.Desc.Name()))
	}
	t.title = tr.GetTitle()
	if t.title == "" {
		t.title = strings.Join(capitalFirst(naming.Words(string(m.Desc.Name()))), " ")
	}
	t.description = tr.GetDescription()
	if t.description == "" {
		t.description = plainLinks(cleanComment(m.Comments.Leading.String()))
	}
	if t.description == "" {
		t.description = t.title + "."
	}
}

// toolKind checks the option's enums and resolves kind (set, or
// classified from the method) and classification (set, or the kind's
// default).
func (b *builder) toolKind(t *toolModel, tr *mcpwritev1.ToolRules) bool {
	m := t.method
	var kindKnown, classKnown, confirmKnown bool
	t.kind, kindKnown = kindOf(tr.GetKind())
	t.classification, classKnown = classOf(tr.GetClassification())
	t.confirmation, confirmKnown = confirmOf(tr.GetConfirmation())
	for _, c := range []struct {
		what  string
		n     int32
		known bool
	}{
		{"kind", int32(tr.GetKind()), kindKnown},
		{"classification", int32(tr.GetClassification()), classKnown},
		{"confirmation", int32(tr.GetConfirmation()), confirmKnown},
	} {
		if !c.known {
			b.probs.methodf(m, "unknown %s %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", c.what, c.n)
			return false
		}
	}
	if t.kind == kindUnset && !b.classifyTool(t) {
		return false
	}
	if t.decidedBy == "" {
		t.decidedBy = "kind " + t.kind.String() + " from the tool option"
		if t.classification != classUnset {
			t.decidedBy += "; classification " + t.classification.String() + " from the tool option"
		}
	}
	if t.classification == classUnset {
		switch t.kind {
		case kindCreate:
			t.classification = classSafeCreate
		case kindDelete:
			t.classification = classDestructiveDelete
		case kindRead:
			t.classification = classReadOnly
		default:
			t.classification = classSafeUpdate
		}
		if tr.Kind != nil {
			t.decidedBy += "; classification " + t.classification.String() + ", the default of kind " + t.kind.String()
		}
	}
	return true
}

// toolConfirmation resolves a write's confirmation, confirmation message
// and elicit fallback, the service's defaults standing in for unset ones.
func (b *builder) toolConfirmation(t *toolModel, tr *mcpwritev1.ToolRules) bool {
	sm, m := t.svc, t.method
	if t.classification == classReadOnly {
		b.probs.methodf(m, "classification READ_ONLY is only for kind READ; set kind: READ, or a write classification (SAFE_CREATE, SAFE_UPDATE, DESTRUCTIVE_UPDATE, DESTRUCTIVE_DELETE)")
		return false
	}
	if t.confirmation == confirmUnset {
		t.confirmation = sm.defaultConfirmation
	}
	if t.confirmation == confirmUnset {
		t.confirmation = confirmDirect
		if t.destructiveClass() {
			t.confirmation = confirmElicit
		}
	}
	fallback, known := fallbackOf(tr.GetElicitFallback())
	if !known {
		b.probs.methodf(m, "unknown elicit_fallback %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", int32(tr.GetElicitFallback()))
		return false
	}
	if tpl := tr.GetConfirmationMessage(); tpl != "" {
		if err := checkConfirmationMessage(tpl, m.Input); err != nil {
			b.probs.methodf(m, "confirmation_message: %v", err)
			return false
		}
		t.confirmationMessage = tpl
	}
	t.elicitFallback = fallback
	if t.elicitFallback == fallbackUnset {
		t.elicitFallback = sm.defaultElicitFallback
	}
	if t.elicitFallback == fallbackUnset {
		t.elicitFallback = fallbackPropose
	}
	return true
}

// toolHints sets a write's MCP hints (the option's, else the kind's and
// classification's) and next steps.
func toolHints(t *toolModel, tr *mcpwritev1.ToolRules) {
	t.readOnly = false
	t.destructive = t.destructiveClass()
	// idempotency_level IDEMPOTENT: the API says a repeated call has the
	// effect of one.
	t.idempotent = t.kind == kindUpdate || t.kind == kindDelete ||
		idempotencyLevel(t.method) == descriptorpb.MethodOptions_IDEMPOTENT
	t.openWorld = false
	if tr != nil {
		if tr.ReadOnlyHint != nil {
			t.readOnly = tr.GetReadOnlyHint()
		}
		if tr.DestructiveHint != nil {
			t.destructive = tr.GetDestructiveHint()
		}
		if tr.IdempotentHint != nil {
			t.idempotent = tr.GetIdempotentHint()
		}
		if tr.OpenWorldHint != nil {
			t.openWorld = tr.GetOpenWorldHint()
		}
	}
	t.nextSteps = tr.GetNextSteps()
}

// toolRetry sets how often a write is retried on a conflict.
func (b *builder) toolRetry(t *toolModel, tr *mcpwritev1.ToolRules) {
	m := t.method
	if tr.GetRetryOnConflict() {
		t.retry = 3
		if tr.MaxConflictRetries != nil {
			t.retry = tr.GetMaxConflictRetries()
		}
	} else if tr != nil && tr.MaxConflictRetries != nil {
		b.probs.methodf(m, "max_conflict_retries needs retry_on_conflict: true; add retry_on_conflict: true to the tool option, or remove max_conflict_retries")
	}
}

package golden

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// maskCall is a generated update_mask check: the decode function of the
// request message, the argument key, the resource getter and the identity.
var maskCall = regexp.MustCompile(`(?s)func decode(\w+)\(d \*mcpwriteimpl\.Decoder, obj \*mcpwriteimpl\.Object, m \*\w+\.\w+\) \{[^}]*?(?:\n\t[^\n]*)*?\n\tm\.UpdateMask = mcpwriteimpl\.CheckUpdateMask(?:Owned)?\(d, "(\w+)", m\.UpdateMask, m\.Get(\w+)\(\), "(\w*)"(?:, (\w+))?\)\n\}`)

// ownedVar is a generated map of the fields the server owns by the
// project's own annotations, as CheckUpdateMaskOwned takes it.
var ownedVar = regexp.MustCompile(`(?s)\nvar (maskOwned\w+) = map\[string\]string\{\n(.*?)\n\}`)

// ownedEntry is one entry of an ownedVar map.
var ownedEntry = regexp.MustCompile(`"([\w.]+)":\s+"([^"]*)"`)

// The update_mask pattern of every AIP-134 Update tool of the golden cases
// lists exactly the paths its decoder takes: every dotted path of the
// resource's fields up to 5 names (and a name past a scalar, a list, a map
// key and a well-known type), in snake_case and lowerCamel, matches the
// pattern exactly when CheckUpdateMask takes it. Paths 4 names deep are
// among those taken; a path into a well-known type's fields is refused
// naming update_mask.
func TestUpdateMaskPatternListsTheDecodersPaths(t *testing.T) {
	want := map[string][2]int{ // tool: paths tried, paths taken
		"aip_identity_reference update_room":         {4, 1},
		"aip_standard_methods update_label":          {4, 1},
		"aip_standard_methods update_shelf":          {29, 10},
		"update_mask_googleapis update_note":         {28, 1},
		"update_mask_own_annotations update_article": {31, 4},
	}
	got := map[string][2]int{}
	refusals := map[string]string{}
	for _, c := range []string{"aip_identity_reference", "aip_standard_methods", "well_known_types", "update_mask_googleapis", "update_mask_own_annotations"} {
		req := request(t, filepath.Join("testdata", c))
		files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: req.ProtoFile})
		if err != nil {
			t.Fatal(err)
		}
		out := run(t, req)
		calls := map[string][]string{} // request message name: key, getter, identity, owned
		owned := map[string]map[string]string{}
		var docs []string
		for name, b := range out {
			for _, m := range maskCall.FindAllStringSubmatch(string(b), -1) {
				calls[m[1]] = m[2:]
			}
			for _, m := range ownedVar.FindAllStringSubmatch(string(b), -1) {
				owned[m[1]] = map[string]string{}
				for _, e := range ownedEntry.FindAllStringSubmatch(m[2], -1) {
					owned[m[1]][e[1]] = e[2]
				}
			}
			if strings.HasSuffix(name, ".mcpwrite.json") {
				docs = append(docs, string(b))
			}
		}
		for _, doc := range docs {
			var d struct {
				Services []struct {
					Tools []struct {
						Name, Method string
						InputSchema  struct {
							Properties map[string]struct{ Pattern string } `json:"properties"`
						} `json:"input_schema"`
					}
				}
			}
			if err := json.Unmarshal([]byte(doc), &d); err != nil {
				t.Fatal(err)
			}
			for _, s := range d.Services {
				for _, tool := range s.Tools {
					desc, err := files.FindDescriptorByName(protoreflect.FullName(tool.Method))
					if err != nil {
						t.Fatal(err)
					}
					in := desc.(protoreflect.MethodDescriptor).Input()
					call, ok := calls[string(in.Name())]
					if !ok {
						continue
					}
					resource := fieldByGoName(in, call[1])
					pattern := regexp.MustCompile(tool.InputSchema.Properties[call[0]].Pattern)
					if call[3] != "" && owned[call[3]] == nil {
						t.Fatalf("%s: %s names %s, which the file does not declare", c, tool.Name, call[3])
					}
					tried, taken := agreeOnMask(t, c+" "+tool.Name, resource.Message(), pattern, call[0], call[2], owned[call[3]], refusals)
					got[c+" "+tool.Name] = [2]int{tried, taken}
				}
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("update tools (paths tried, taken) = %v\nwant %v", got, want)
	}
	for path, msg := range map[string]string{
		"aip_standard_methods update_shelf placement.aisle.bay.code":        "",
		"aip_standard_methods update_shelf placement.placedAt":              "",
		"aip_standard_methods update_shelf placement.placed_at.seconds":     `update_mask path "placement.placed_at.seco"…: placed_at is a google.protobuf.Timestamp, which an update replaces whole; end the path at "placement.placed_at"`,
		"update_mask_own_annotations update_article title":                  "",
		"update_mask_own_annotations update_article stewardship.team":       "",
		"update_mask_own_annotations update_article article_id":             "update_mask path \"article_id\": field kb.v1.ArticleChanges.article_id names the resource to update; leave it out of the mask",
		"update_mask_own_annotations update_article created_at":             "update_mask path \"created_at\": field kb.v1.ArticleChanges.created_at is generated: set by the server; leave it out of the mask",
		"update_mask_own_annotations update_article tenantId":               "update_mask path \"tenant_id\": field kb.v1.ArticleChanges.tenant_id is derived from the request context: set by the server; leave it out of the mask",
		"update_mask_own_annotations update_article rank":                   "update_mask path \"rank\": field kb.v1.ArticleChanges.rank is hidden: set by the server; leave it out of the mask",
		"update_mask_own_annotations update_article stewardship.changed_by": "update_mask path \"stewardship.changed_by\": field kb.v1.Stewardship.changed_by is derived from the request context: set by the server; leave it out of the mask",
		"update_mask_googleapis update_note path":                           "update_mask path \"path\": field notes.v1.Note.path names the resource to update; leave it out of the mask",
		"update_mask_googleapis update_note create_time":                    "update_mask path \"create_time\": field notes.v1.Note.create_time is OUTPUT_ONLY: the server sets it; leave it out of the mask",
		"update_mask_googleapis update_note update_time":                    "update_mask path \"update_time\": field notes.v1.Note.update_time is generated: set by the server; leave it out of the mask",
		"update_mask_googleapis update_note ownerId":                        "update_mask path \"owner_id\": field notes.v1.Note.owner_id is derived from the request context: set by the server; leave it out of the mask",
	} {
		if got, ok := refusals[path]; !ok || got != msg {
			t.Errorf("%s: refusal %q (tried %v), want %q", path, got, ok, msg)
		}
	}
}

// agreeOnMask tries every candidate path of resource against the pattern
// and the decoder's check, and returns how many it tried and how many both
// take; refusals gets the decoder's message for every path tried ("" when it
// takes it), under the tool and the path.
func agreeOnMask(t *testing.T, tool string, resource protoreflect.MessageDescriptor, pattern *regexp.Regexp, key, identity string, owned map[string]string, refusals map[string]string) (int, int) {
	t.Helper()
	tried, taken := 0, 0
	for _, p := range maskCandidates(resource, "", "", 5) {
		d := new(mcpwriteimpl.Decoder)
		mcpwriteimpl.CheckUpdateMaskOwned(d, key, &fieldmaskpb.FieldMask{Paths: []string{p[0]}}, dynamicpb.NewMessage(resource), identity, owned)
		es := d.Errors()
		decoded := len(es) == 0
		for _, spelling := range p {
			tried++
			refusals[tool+" "+spelling] = ""
			if len(es) > 0 {
				refusals[tool+" "+spelling] = es[0].Message
			}
			if pattern.MatchString(spelling) != decoded {
				t.Errorf("%s: path %q: pattern matches %v, decoder takes %v (%v)", tool, spelling, pattern.MatchString(spelling), decoded, es)
			}
		}
		if decoded {
			taken += len(p)
		}
		for _, e := range es {
			if e.Field != key || !strings.Contains(e.Message, "update_mask path") {
				t.Errorf("%s: path %q refused as %s %q, want it on %s naming update_mask", tool, p[0], e.Field, e.Message, key)
			}
		}
	}
	return tried, taken
}

// maskCandidates lists the dotted paths of md's fields up to depth names,
// each in snake_case and, when it differs and the decoder converts it
// back, in lowerCamel; a name follows every field ("x", a map's key "k").
func maskCandidates(md protoreflect.MessageDescriptor, prefix, camelPrefix string, depth int) [][]string {
	if depth == 0 {
		return nil
	}
	var out [][]string
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		p, c := prefix+string(fd.Name()), camelPrefix+fd.JSONName()
		spellings := func(p, c string) []string {
			if c != p && maskSnake(c) == p {
				return []string{p, c}
			}
			return []string{p}
		}
		out = append(out, spellings(p, c))
		switch {
		case fd.IsMap():
			out = append(out, spellings(p+".k", c+".k"))
		case fd.Message() != nil && depth > 1:
			out = append(out, maskCandidates(fd.Message(), p+".", c+".", depth-1)...)
		case depth > 1:
			out = append(out, spellings(p+".x", c+".x"))
		}
	}
	return out
}

// maskSnake is the decoder's reading of a lowerCamel path.
func maskSnake(p string) string {
	var b strings.Builder
	for _, seg := range strings.Split(p, ".") {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		for i, r := range seg {
			if r >= 'A' && r <= 'Z' {
				if i > 0 {
					b.WriteByte('_')
				}
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fieldByGoName is the field of md whose Go name (CamelCase) is name.
func fieldByGoName(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		var b strings.Builder
		for _, part := range strings.Split(string(fd.Name()), "_") {
			if part != "" {
				b.WriteString(strings.ToUpper(part[:1]) + part[1:])
			}
		}
		if b.String() == name {
			return fd
		}
	}
	return nil
}

package neotoma_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// fileSource is the source ID and content hash the server must derive for
// a file of ada's tenant: the SHA-256 of its bytes, the id scoped to the
// user (userSourceID).
func fileSource(content string) (src, hash string) {
	sum := sha256.Sum256([]byte(content))
	hash = hex.EncodeToString(sum[:])
	return userSourceID(ada.TenantID, ada.PrincipalID, hash), hash
}

// runOf is the run ID of interpreting src with a configuration, given as
// canonical JSON of its fields ("{}" for none).
func runOf(src, config string) string {
	return "run_" + runtime.ContentHash(src, config)
}

func obsOf(run string, i string) string { return "obs_" + runtime.ContentHash(run, i) }

// noteOf is the entity a file interprets into: a note of its own.
func noteOf(user, src string) string { return entityID(user, "note", "source="+src) }

const pdf = "%PDF-1.4 sample invoice"

// The document's end-to-end example: an agent reads a PDF, base64-encodes
// it and stores it with its MIME type and file name; the server interprets it.
func TestStoreFileIsInterpreted(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte(pdf))+`","mime_type":"application/pdf","original_filename":"sample_invoice.pdf"}`)
	src, hash := fileSource(pdf)
	run := runOf(src, "{}")
	note := noteOf("user-ada", src)
	assertJSON(t, out, `{
		"success": true,
		"source_id": "`+src+`",
		"content_hash": "`+hash+`",
		"deduplicated": false,
		"file_size": 23,
		"interpretation": {"run_id": "`+run+`", "entities_created": 1, "observations_created": 1},
		"entities": [{"entity_id": "`+note+`", "entity_type": "note", "observation_id": "`+obsOf(run, "0")+`", "created": true, "canonical_name": "sample_invoice.pdf"}],
		"suggestions": ["Call create_relationship to create a typed relationship between two entities", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, note); !cmp.Equal(snap, map[string]any{"title": "sample_invoice.pdf"}) {
		t.Errorf("note snapshot = %v", snap)
	}
}

// interpret: false stores the file only; reinterpret runs later, the same
// configuration always giving the same run and a new one adding
// observations without touching the earlier ones. Storing the file again
// then answers the existing interpretation instead of running another.
func TestStoreWithoutInterpretationThenReinterpret(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	const text = "Call Ada about the Q3 invoice."
	args := `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpret":false}`
	out := mustSucceed(t, cs, "store", args)
	src, hash := fileSource(text)
	assertJSON(t, out, `{
		"success": true, "source_id": "`+src+`", "content_hash": "`+hash+`", "deduplicated": false, "file_size": 30,
		"suggestions": ["Call create_relationship to create a typed relationship between two entities", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)

	cfg := `{"provider":"openai","model_id":"gpt-4o","temperature":0}`
	run := runOf(src, `{"model_id":"gpt-4o","provider":"openai"}`)
	first := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":`+cfg+`}`)
	assertJSON(t, first, `{
		"success": true, "run_id": "`+run+`", "entities_created": 1, "observations_created": 1, "source_id": "`+src+`",
		"suggestions": ["Call retrieve_entities to retrieve your entities, optionally of one type, oldest first, with their snapshots"],
		"warnings": []
	}`)
	if again := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":`+cfg+`}`); !cmp.Equal(again, first) {
		t.Errorf("same configuration again = %v, want the same run %v", again, first)
	}
	other := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":{"model_id":"gpt-4o-mini"}}`)
	if other["run_id"] != runOf(src, `{"model_id":"gpt-4o-mini"}`) || other["entities_created"] != 0.0 || other["observations_created"] != 1.0 {
		t.Errorf("new configuration = %v, want a new run adding one observation to the existing note", other)
	}
	note := noteOf("user-ada", src)
	obs := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+note+`"}`)
	if obs["total"] != 2.0 {
		t.Errorf("observations after two runs = %v", obs)
	}
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, note); !cmp.Equal(snap, map[string]any{"title": src, "content": text}) {
		t.Errorf("note snapshot = %v", snap)
	}

	// Stored again with interpretation: deduplicated, answered with the
	// first run, and no run is added.
	again := mustSucceed(t, cs, "store", strings.Replace(args, `"interpret":false`, `"interpret":true`, 1))
	if again["deduplicated"] != true || again["interpretation"].(map[string]any)["run_id"] != run {
		t.Errorf("stored again = %v, want deduplicated with run %s", again, run)
	}
	if obs := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+note+`"}`); obs["total"] != 2.0 {
		t.Errorf("observations after storing again = %v, want still 2", obs)
	}
}

// A deduplicated file without observations is interpreted when stored
// again with interpret: true, once.
func TestDeduplicatedFileIsInterpretedOnce(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	args := `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain"}`
	mustSucceed(t, cs, "store", strings.Replace(args, `}`, `,"interpret":false}`, 1))
	second := mustSucceed(t, cs, "store", args)
	third := mustSucceed(t, cs, "store", args)
	src, _ := fileSource("Call Ada about the Q3 invoice.")
	run := runOf(src, "{}")
	for i, out := range []map[string]any{second, third} {
		if out["deduplicated"] != true || !cmp.Equal(out["interpretation"], map[string]any{"run_id": run, "entities_created": 1.0, "observations_created": 1.0}) {
			t.Errorf("store %d = %v", i+2, out)
		}
	}
	if obs := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+noteOf("user-ada", src)+`"}`); obs["total"] != 1.0 {
		t.Errorf("observations = %v, want 1", obs)
	}
}

// file_path reads files under the server's directory only; the MIME type
// comes from the extension and the file name from the path. A JSON file of
// entity objects interprets into those entities.
func TestStoreFilePath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "invoices"), 0o755); err != nil {
		t.Fatal(err)
	}
	content := `[{"entity_type":"invoice","invoice_number":"INV-7","amount":5}]`
	if err := os.WriteFile(filepath.Join(root, "invoices", "inv.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scan.neotomaunknown"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A socket is a file no read can open.
	sock, err := net.Listen("unix", filepath.Join(root, "agent.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	s := newServer(t)
	s.rec.SetFiles(domain.FileOptions{Root: root})
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "store", `{"file_path":"invoices/inv.json"}`)
	src, _ := fileSource(content)
	run := runOf(src, "{}")
	inv := entityID("user-ada", "invoice", "invoice_number=inv-7")
	if diff := cmp.Diff([]any{map[string]any{"entity_id": inv, "entity_type": "invoice", "observation_id": obsOf(run, "0"), "created": true, "canonical_name": "INV-7"}}, out["entities"]); diff != "" {
		t.Errorf("entities (-want +got):\n%s", diff)
	}
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, inv); !cmp.Equal(snap, map[string]any{"invoice_number": "INV-7", "amount": 5.0}) {
		t.Errorf("invoice snapshot = %v", snap)
	}
	// The stored file's MIME type is the one its extension gives, its name
	// the path's base name.
	material := mustSucceed(t, cs, "retrieve_field_provenance", `{"entity_id":"`+inv+`","field":"amount"}`)["source_material"]
	if diff := cmp.Diff(map[string]any{"id": src, "mime_type": "application/json", "original_filename": "inv.json", "created_at": "2026-03-01T09:00:00Z", "file_urls": []any{"neotoma://files/" + src}}, material); diff != "" {
		t.Errorf("source material of a file_path store (-want +got):\n%s", diff)
	}

	for _, tt := range []struct{ args, code, field, message string }{
		{`{"file_path":"invoices/missing.pdf"}`, domain.CodeFileNotFound, "file_path", "no file at file_path"},
		{`{"file_path":"../outside.pdf"}`, runtime.CodeValidation, "file_path", "file_path is outside the directory this server reads"},
		{`{"file_path":"invoices"}`, runtime.CodeValidation, "file_path", "file_path names a directory, not a file"},
		{`{"file_path":"scan.neotomaunknown"}`, runtime.CodeValidation, "mime_type", `cannot detect the MIME type of a ".neotomaunknown" file`},
		{`{"file_path":"agent.sock","mime_type":"text/plain"}`, domain.CodeFileReadError, "file_path", "cannot read the file; retry later"},
	} {
		got, isErr := call(t, cs, "store", tt.args)
		e, _ := got["error"].(map[string]any)
		if !isErr || e["code"] != tt.code || e["field"] != tt.field || e["message"] != tt.message {
			t.Errorf("store %s = %v, want %s on %s: %s", tt.args, got, tt.code, tt.field, tt.message)
		}
	}

	// Without a directory the server reads no local file at all.
	bare := newServer(t)
	got, isErr := call(t, bare.connect(ada, nil), "store", `{"file_path":"invoices/inv.json"}`)
	if code, field, top := errorOf(t, got); !isErr || code != runtime.CodeValidation || field != "file_path" || top != "Send the file itself as file_content (base64) with its mime_type." {
		t.Errorf("file_path without a directory = %v", got)
	}
}

func TestStoreFileMistakes(t *testing.T) {
	pdf64 := base64.StdEncoding.EncodeToString([]byte(pdf))
	tests := []struct {
		name               string
		setup              func(*server)
		before             string
		args               string
		wantCodes          []string
		wantField, wantTop string
		wantMessage        string
		wantDetails        map[string]any
	}{
		{
			name:      "no material at all",
			args:      `{"mime_type":"application/pdf"}`,
			wantCodes: []string{"MISSING_REQUIRED_FIELD@entities"},
			wantField: "entities",
		},
		{
			name:        "both forms at once",
			args:        `{"entities":[{"entity_type":"note","title":"x"}],"file_content":"` + pdf64 + `","mime_type":"application/pdf"}`,
			wantCodes:   []string{"VALIDATION_ERROR@file_content"},
			wantField:   "file_content",
			wantMessage: "set only one of entities, file_content, file_path, not entities and file_content",
		},
		{
			name:        "file content without its MIME type",
			args:        `{"file_content":"` + pdf64 + `"}`,
			wantCodes:   []string{"VALIDATION_ERROR@mime_type"},
			wantField:   "mime_type",
			wantTop:     "Send the file's MIME type, e.g. application/pdf.",
			wantMessage: "mime_type is required with file_content",
		},
		{
			name:        "unsupported file type",
			args:        `{"file_content":"` + pdf64 + `","mime_type":"application/zip"}`,
			wantCodes:   []string{"UNSUPPORTED_FILE_TYPE@mime_type"},
			wantField:   "mime_type",
			wantMessage: "files of type application/zip are not supported",
			wantDetails: map[string]any{"mime_type": "application/zip"},
		},
		{
			name:        "content that is not base64",
			args:        `{"file_content":"%PDF-1.4 sample","mime_type":"application/pdf"}`,
			wantCodes:   []string{"INVALID_TYPE@file_content"},
			wantField:   "file_content",
			wantMessage: "expected base64 data, got an invalid character at offset 0",
		},
		{
			name:        "file over the size limit",
			setup:       func(s *server) { s.rec.SetMaxFileSize(10) },
			args:        `{"file_content":"` + pdf64 + `","mime_type":"application/pdf"}`,
			wantCodes:   []string{"FILE_TOO_LARGE@file_content"},
			wantField:   "file_content",
			wantMessage: "file exceeds the 10-byte limit",
			wantDetails: map[string]any{"file_size_bytes": 23.0, "max_size_bytes": 10.0},
		},
		{
			name:        "interpretation quota used up",
			setup:       func(s *server) { s.rec.SetInterpretationQuota(1) },
			before:      `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain"}`,
			args:        `{"file_content":"` + pdf64 + `","mime_type":"application/pdf"}`,
			wantCodes:   []string{"QUOTA_EXCEEDED"},
			wantTop:     "Store files with interpret: false now and reinterpret them when the quota allows.",
			wantMessage: "interpretation quota of 1 runs is used up",
			wantDetails: map[string]any{"quota": 1.0},
		},
		{
			name:        "JSON file that is not JSON",
			args:        `{"file_content":"` + base64.StdEncoding.EncodeToString([]byte("{not json")) + `","mime_type":"application/json"}`,
			wantCodes:   []string{"ANALYSIS_FAILED"},
			wantMessage: "interpretation failed: the file is not valid JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			if tt.setup != nil {
				tt.setup(s)
			}
			cs := s.connect(ada, nil)
			if tt.before != "" {
				mustSucceed(t, cs, "store", tt.before)
			}
			out, isErr := call(t, cs, "store", tt.args)
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codesOrField(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || (tt.wantTop != "" && top != tt.wantTop) {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
			e := out["error"].(map[string]any)
			if tt.wantMessage != "" && e["message"] != tt.wantMessage {
				t.Errorf("message = %q, want %q", e["message"], tt.wantMessage)
			}
			if tt.wantDetails != nil && !cmp.Equal(e["details"], tt.wantDetails) {
				t.Errorf("details = %v, want %v", e["details"], tt.wantDetails)
			}
		})
	}
}

// codesOrField lists code@field of every error entry, code alone when an
// entry names no field.
func codesOrField(out map[string]any) []string {
	var cs []string
	es, _ := out["errors"].([]any)
	for _, e := range es {
		m := e.(map[string]any)
		if f, _ := m["field"].(string); f != "" {
			cs = append(cs, m["code"].(string)+"@"+f)
		} else {
			cs = append(cs, m["code"].(string))
		}
	}
	return cs
}

func TestReinterpretMistakes(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	structured := mustSucceed(t, cs, "store", invoiceArgs)["source_id"].(string)
	for _, tt := range []struct{ args, code, field, message string }{
		{`{"source_id":"src_00000000000000000000000000000000","interpretation_config":{}}`, domain.CodeSourceNotFound, "source_id", "source src_00000000000000000000000000000000 not found"},
		{`{"source_id":"` + structured + `","interpretation_config":{}}`, runtime.CodeValidation, "source_id", "source " + structured + " is structured material; only files are interpreted"},
		{`{"source_id":"` + structured + `"}`, runtime.CodeMissingRequired, "interpretation_config", ""},
		{`{"source_id":"` + structured + `","interpretation_config":{"temperature":3}}`, runtime.CodeConstraintViolation, "interpretation_config.temperature", ""},
	} {
		out, isErr := call(t, cs, "reinterpret", tt.args)
		e, _ := out["error"].(map[string]any)
		if !isErr || e["code"] != tt.code || e["field"] != tt.field || (tt.message != "" && e["message"] != tt.message) {
			t.Errorf("reinterpret %s = %v, want %s on %s: %s", tt.args, out, tt.code, tt.field, tt.message)
		}
	}
	// Grace cannot reinterpret Ada's file: it does not exist for her.
	file := mustSucceed(t, cs, "store", `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpret":false}`)["source_id"].(string)
	out, isErr := call(t, s.connect(grace, nil), "reinterpret", `{"source_id":"`+file+`","interpretation_config":{}}`)
	if code, _, _ := errorOf(t, out); !isErr || code != domain.CodeSourceNotFound {
		t.Errorf("grace reinterpreting ada's file = %v", out)
	}
}

// A stored file's provenance names where the file is stored; retrieve_file_url
// signs a time-limited URL for it (an hour by default, or expires_in
// seconds), under the memory's key, for this user of this tenant only.
// Structured material has no file, and a path that is not one of the
// caller's files is FILE_NOT_FOUND.
func TestRetrieveFileURL(t *testing.T) {
	s := newServer(t)
	key := []byte("file-url-test-key")
	s.rec.SetURLKey(key)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte(pdf))+`","mime_type":"application/pdf","original_filename":"sample_invoice.pdf"}`)
	src, _ := fileSource(pdf)
	note := noteOf("user-ada", src)
	run := runOf(src, "{}")
	prov := mustSucceed(t, cs, "retrieve_field_provenance", `{"entity_id":"`+note+`","field":"title"}`)
	assertJSON(t, prov, `{
		"success": true,
		"field": "title", "value": "sample_invoice.pdf",
		"source_observation": {"id": "`+obsOf(run, "0")+`", "source_id": "`+src+`", "observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 100},
		"source_material": {"id": "`+src+`", "mime_type": "application/pdf", "original_filename": "sample_invoice.pdf", "created_at": "2026-03-01T09:00:00Z", "file_urls": ["neotoma://files/`+src+`"]},
		"observed_at": "2026-03-01T09:00:00Z",
		"suggestions": [], "warnings": []
	}`)

	hour := fixedNow.Add(time.Hour).Unix()
	out := mustSucceed(t, cs, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`"}`)
	assertJSON(t, out, `{
		"success": true,
		"signed_url": "neotoma://files/`+src+`?expires=1772359200&sig=`+domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, hour)+`",
		"expires_at": "2026-03-01T10:00:00Z",
		"suggestions": [], "warnings": []
	}`)
	if hour != 1772359200 {
		t.Errorf("an hour after %v is %d", fixedNow, hour)
	}
	out = mustSucceed(t, cs, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`","expires_in":600}`)
	assertJSON(t, out, `{
		"success": true,
		"signed_url": "neotoma://files/`+src+`?expires=1772356200&sig=`+domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, 1772356200)+`",
		"expires_at": "2026-03-01T09:10:00Z",
		"suggestions": [], "warnings": []
	}`)
	// The signature binds the user: the same file and expiry for another
	// user of the tenant, or another key, sign differently.
	if domain.FileURLSignature(key, ada.TenantID, "user-bob", src, hour) == domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, hour) ||
		domain.FileURLSignature([]byte("other"), ada.TenantID, ada.PrincipalID, src, hour) == domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, hour) {
		t.Error("file URL signatures do not depend on the user and the key")
	}

	structured := mustSucceed(t, cs, "store", invoiceArgs)["source_id"].(string)
	if got := mustSucceed(t, cs, "retrieve_field_provenance", `{"entity_id":"`+invoiceID+`","field":"vendor"}`)["source_material"].(map[string]any); got["file_urls"] != nil {
		t.Errorf("structured material has file URLs: %v", got)
	}
	for _, path := range []string{"neotoma://files/" + structured, "neotoma://files/src_00000000000000000000000000000000", src, "files/" + src} {
		bad, isErr := call(t, cs, "retrieve_file_url", `{"file_path":"`+path+`"}`)
		if !isErr {
			t.Errorf("retrieve_file_url %s succeeded: %v", path, bad)
			continue
		}
		entry := `{"code": "FILE_NOT_FOUND", "field": "file_path", "message": "no stored file at file_path",
			"suggestions": {"hint": "Use a file_urls entry of retrieve_field_provenance's source_material (neotoma://files/src_...); structured material has no file."}}`
		assertJSON(t, bad, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
	}
	bad, isErr := call(t, cs, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`","expires_in":0}`)
	if code, field, _ := errorOf(t, bad); !isErr || code != runtime.CodeConstraintViolation || field != "expires_in" {
		t.Errorf("expires_in 0 = %v, want CONSTRAINT_VIOLATION on expires_in", bad)
	}
}

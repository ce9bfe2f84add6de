package domain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// DefaultMaxFileSize is the largest file stored: 50 MB.
const DefaultMaxFileSize = 50 << 20

// SupportedMimeTypes are the file types store accepts.
var SupportedMimeTypes = []string{
	"application/json", "application/pdf", "image/jpeg", "image/png",
	"text/csv", "text/markdown", "text/plain",
}

// file is unstructured material as store received it.
type file struct {
	content  []byte
	mimeType string
	filename string
}

// readFile takes the file of a request: file_content with its mime_type,
// or a file_path under the configured root.
func (m *Memory) readFile(req *neotomav1.StoreRequest) (file, *runtime.ErrorEntry) {
	f := file{content: req.GetFileContent(), mimeType: req.GetMimeType(), filename: req.GetOriginalFilename()}
	if req.GetFilePath() != "" {
		p, bad := m.readPath(req.GetFilePath())
		if bad != nil {
			return file{}, bad
		}
		f.content = p
		if f.filename == "" {
			f.filename = filepath.Base(req.GetFilePath())
		}
		if f.mimeType == "" {
			f.mimeType, _, _ = strings.Cut(mime.TypeByExtension(filepath.Ext(req.GetFilePath())), ";")
			if f.mimeType == "" {
				return file{}, &runtime.ErrorEntry{
					Code: runtime.CodeValidation, Field: "mime_type",
					Message:     fmt.Sprintf("cannot detect the MIME type of a %q file", filepath.Ext(req.GetFilePath())),
					Suggestions: &runtime.Suggestions{ValidValues: SupportedMimeTypes, Hint: "Send mime_type with file_path."},
				}
			}
		}
	} else if f.mimeType == "" {
		return file{}, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "mime_type",
			Message:     "mime_type is required with file_content",
			Suggestions: &runtime.Suggestions{ValidValues: SupportedMimeTypes, Hint: "Send the file's MIME type, e.g. application/pdf."},
		}
	}
	if !contains(SupportedMimeTypes, f.mimeType) {
		return file{}, &runtime.ErrorEntry{
			Code: CodeUnsupportedFileType, Field: "mime_type",
			Message:     fmt.Sprintf("files of type %s are not supported", f.mimeType),
			Details:     map[string]any{"mime_type": f.mimeType},
			Suggestions: &runtime.Suggestions{ValidValues: SupportedMimeTypes},
		}
	}
	if len(f.content) > m.maxSize {
		return file{}, &runtime.ErrorEntry{
			Code: CodeFileTooLarge, Field: fileField(req),
			Message: fmt.Sprintf("file exceeds the %d-byte limit", m.maxSize),
			Details: map[string]any{"file_size_bytes": len(f.content), "max_size_bytes": m.maxSize},
		}
	}
	return f, nil
}

func fileField(req *neotomav1.StoreRequest) string {
	if req.GetFilePath() != "" {
		return "file_path"
	}
	return "file_content"
}

// readPath reads a file under the configured root. Messages name no path:
// it may be personal data.
func (m *Memory) readPath(p string) ([]byte, *runtime.ErrorEntry) {
	if m.files.Root == "" {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "file_path",
			Message:     "this server reads no local files",
			Suggestions: &runtime.Suggestions{Hint: "Send the file itself as file_content (base64) with its mime_type."},
		}
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(m.files.Root, full)
	}
	rel, err := filepath.Rel(m.files.Root, filepath.Clean(full))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "file_path",
			Message:     "file_path is outside the directory this server reads",
			Suggestions: &runtime.Suggestions{Hint: "Send the file itself as file_content (base64) with its mime_type."},
		}
	}
	root, err := os.OpenRoot(m.files.Root)
	if err != nil {
		return nil, &runtime.ErrorEntry{Code: CodeFileReadError, Field: "file_path", Message: "cannot open the file directory"}
	}
	defer root.Close()
	info, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &runtime.ErrorEntry{
			Code: CodeFileNotFound, Field: "file_path", Message: "no file at file_path",
			Suggestions: &runtime.Suggestions{Hint: "Check the path, relative to the server's file directory, or send file_content."},
		}
	}
	if err == nil && info.IsDir() {
		return nil, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: "file_path", Message: "file_path names a directory, not a file"}
	}
	if err == nil && info.Size() > int64(m.maxSize) {
		return nil, &runtime.ErrorEntry{
			Code: CodeFileTooLarge, Field: "file_path",
			Message: fmt.Sprintf("file exceeds the %d-byte limit", m.maxSize),
			Details: map[string]any{"file_size_bytes": info.Size(), "max_size_bytes": m.maxSize},
		}
	}
	var b []byte
	if err == nil {
		b, err = root.ReadFile(rel)
	}
	if err != nil {
		return nil, &runtime.ErrorEntry{Code: CodeFileReadError, Field: "file_path", Message: "cannot read the file; retry later"}
	}
	return b, nil
}

// storeFile stores a file by its content hash and, unless interpret is
// false, interprets it: a deduplicated file is interpreted only when no
// run has created observations from it yet.
func (m *Memory) storeFile(who owner, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, bad := m.readFile(req)
	if bad != nil {
		return nil, bad
	}
	hash := sha256Hex(f.content)
	u := m.user(who)
	s, dedup := u.sources[hash]
	if !dedup {
		s = &source{id: SourceID(who.tenant, who.user, hash), hash: hash, mimeType: f.mimeType, filename: f.filename, content: f.content, size: int32(len(f.content)), runs: map[string]*run{}, at: req.GetStoredAt().AsTime()}
	}
	if req.GetInterpret() && s.first == nil {
		if err := m.checkQuota(u); err != nil {
			return nil, err
		}
		r, err := m.interpret(who, u, s, req.GetInterpretationConfig(), req.GetStoredAt().AsTime())
		if err != nil {
			return nil, err
		}
		s.first = r
	}
	u.sources[hash] = s
	return m.storeAnswer(who, u, s, dedup), nil
}

func (m *Memory) checkQuota(u *userMemory) error {
	if m.quota > 0 && u.runs >= m.quota {
		return &runtime.ErrorEntry{
			Code:        CodeQuotaExceeded,
			Message:     fmt.Sprintf("interpretation quota of %d runs is used up", m.quota),
			Details:     map[string]any{"quota": m.quota},
			Suggestions: &runtime.Suggestions{Hint: "Store files with interpret: false now and reinterpret them when the quota allows."},
		}
	}
	return nil
}

// interpret runs the deterministic interpreter over a file: JSON holding
// entity objects becomes those entities; any other file becomes one note
// of its own, titled by its file name and holding the text of text files
// (the stand-in for AI interpretation: deterministic by design). The run ID
// hashes the source and the configuration, so the same pair is the same run.
func (m *Memory) interpret(who owner, u *userMemory, s *source, cfg *neotomav1.InterpretationConfig, at time.Time) (*run, error) {
	id := runID(s, cfg)
	if r, ok := s.runs[id]; ok {
		return r, nil
	}
	var ins []entityInput
	if s.mimeType == "application/json" {
		var v structpb.Value
		if err := protojson.Unmarshal(s.content, &v); err != nil {
			return nil, analysisFailed("the file is not valid JSON")
		}
		items := v.GetListValue().GetValues()
		if v.GetStructValue() != nil {
			items = []*structpb.Value{&v}
		}
		parsed, err := m.parseEntities(who, items, "file_content")
		if err != nil {
			return nil, err
		}
		ins = parsed
	} else {
		title := s.filename
		if title == "" {
			title = s.id
		}
		fields := map[string]*structpb.Value{"title": structpb.NewStringValue(title)}
		if strings.HasPrefix(s.mimeType, "text/") && utf8.Valid(s.content) {
			fields["content"] = structpb.NewStringValue(string(s.content))
		}
		ins = []entityInput{{typ: "note", name: title, key: "source=" + s.id, fields: fields}}
	}
	u.runs++
	return m.observe(who, u, s, id, ins, defaultPriority, at), nil
}

func runID(s *source, cfg *neotomav1.InterpretationConfig) string {
	b, _ := protojson.MarshalOptions{UseProtoNames: true}.Marshal(cfg)
	var canon any
	_ = json.Unmarshal(b, &canon) // protojson's output is JSON; re-marshal sorts the keys
	c, _ := json.Marshal(canon)
	return "run_" + runtime.ContentHash(s.id, string(c))
}

func analysisFailed(why string) *runtime.ErrorEntry {
	return &runtime.ErrorEntry{Code: "ANALYSIS_FAILED", Message: "interpretation failed: " + why}
}

// Reinterpret interprets a stored file again with a new configuration. The
// same configuration answers the run it already made.
func (m *Memory) Reinterpret(ctx context.Context, req *neotomav1.ReinterpretRequest) (*neotomav1.ReinterpretResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	var s *source
	for _, x := range u.sources {
		if x.id == req.GetSourceId() {
			s = x
		}
	}
	if s == nil {
		return nil, &runtime.ErrorEntry{
			Code: CodeSourceNotFound, Field: "source_id",
			Message:     fmt.Sprintf("source %s not found", req.GetSourceId()),
			Details:     map[string]any{"source_id": req.GetSourceId()},
			Suggestions: &runtime.Suggestions{Hint: "Use a source_id returned by store; sources are visible only to the user who stored them."},
		}
	}
	if s.content == nil {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "source_id",
			Message:     fmt.Sprintf("source %s is structured material; only files are interpreted", s.id),
			Suggestions: &runtime.Suggestions{Hint: "Fix structured values with correct, or store the corrected material."},
		}
	}
	if _, done := s.runs[runID(s, req.GetInterpretationConfig())]; !done {
		if err := m.checkQuota(u); err != nil {
			return nil, err
		}
	}
	r, err := m.interpret(who, u, s, req.GetInterpretationConfig(), req.GetRequestedAt().AsTime())
	if err != nil {
		return nil, err
	}
	if s.first == nil {
		s.first = r
	}
	return &neotomav1.ReinterpretResponse{RunId: r.id, EntitiesCreated: r.created, ObservationsCreated: r.observations, SourceId: s.id}, nil
}

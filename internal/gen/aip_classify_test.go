package gen_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// reviewOf generates src with review=only and returns its review report
// without the header, one method a line.
func reviewOf(t *testing.T, src string) string {
	t.Helper()
	resp, err := plugintest.Run(request(t, src, "review=only"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatalf("generate: %s", resp.GetError())
	}
	if len(resp.File) != 1 || !strings.HasSuffix(resp.File[0].GetName(), ".mcpwrite.review.tsv") {
		t.Fatalf("review=only emitted %d files, want one review report", len(resp.File))
	}
	_, rows, _ := strings.Cut(resp.File[0].GetContent(), "\n")
	return rows
}

// Writes fail closed: only a standard Create, a standard Update (its
// update_mask names what changes) or the tool option says a write is
// safe; destructive verbs, comments and requests are evidence; every
// other write is destructive by default and confirmed; IDEMPOTENT is
// recorded but does not make a write safe.
func TestClassificationFailsClosed(t *testing.T) {
	src := `
import "google/api/annotations.proto";
import "google/protobuf/field_mask.proto";
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc CreateBook(CreateBookRequest) returns (Book) { option (google.api.http) = {post: "/v1/{parent=shelves/*}/books" body: "book"}; }
  rpc UpdateBook(UpdateBookRequest) returns (Book) { option (google.api.http) = {patch: "/v1/{book.name=shelves/*/books/*}" body: "book"}; }
  rpc ReplaceBook(Book) returns (Book) { option (google.api.http) = {put: "/v1/{name=shelves/*/books/*}" body: "*"}; }
  rpc BatchDeleteBooks(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}/books:batchDelete" body: "*"}; }
  rpc CancelPrint(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:cancelPrint" body: "*"}; }
  rpc GenerateAccessToken(Req) returns (Book) { option (google.api.http) = {get: "/v1/{name=shelves/*}:generateAccessToken"}; }
  rpc SignBlob(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:signBlob" body: "*"}; }
  // Tidies a shelf. This cannot be undone.
  rpc TidyShelf(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:tidy" body: "*"}; }
  rpc UpdateShelfDdl(DdlRequest) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:updateDdl" body: "*"}; }
  rpc ArchiveBooks(FilterRequest) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:archive" body: "*"}; }
  rpc RenameShelf(Req) returns (Book) {
    option (google.api.http) = {post: "/v1/{name=shelves/*}:rename" body: "*"};
    option idempotency_level = IDEMPOTENT;
  }
  rpc Shelve(Req) returns (Book) {
    option (google.api.http) = {post: "/v1/{name=shelves/*}:shelve" body: "*"};
    option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE};
  }
  rpc AddBook(Req) returns (Book);
}
message Book { string name = 1; string title = 2; }
message Req { string name = 1; }
message CreateBookRequest { string parent = 1; Book book = 2; }
message UpdateBookRequest { Book book = 1; google.protobuf.FieldMask update_mask = 2; }
message DdlRequest { string name = 1; repeated string statements = 2; }
message FilterRequest { string name = 1; string filter = 2; }`
	want := `bad.v1.S	CreateBook	post /v1/{parent=shelves/*}/books	CREATE	SAFE_CREATE	DIRECT	AIP-133 Create shape (Create* with parent and resource)
bad.v1.S	UpdateBook	patch /v1/{book.name=shelves/*/books/*}	UPDATE	SAFE_UPDATE	DIRECT	AIP-134 Update shape (Update* with resource and update_mask: changes only the named fields)
bad.v1.S	ReplaceBook	put /v1/{name=shelves/*/books/*}	UPDATE	DESTRUCTIVE_UPDATE	ELICIT	google.api.http put: /v1/{name=shelves/*/books/*}; destructive: destructive verb Replace*
bad.v1.S	BatchDeleteBooks	post /v1/{name=shelves/*}/books:batchDelete	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method BatchDeleteBooks bound to post: /v1/{name=shelves/*}/books:batchDelete; destructive: destructive verb Delete*
bad.v1.S	CancelPrint	post /v1/{name=shelves/*}:cancelPrint	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method CancelPrint bound to post: /v1/{name=shelves/*}:cancelPrint; destructive: destructive verb Cancel*
bad.v1.S	GenerateAccessToken	get /v1/{name=shelves/*}:generateAccessToken	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method GenerateAccessToken bound to get: /v1/{name=shelves/*}:generateAccessToken; destructive: destructive verb Generate*Token (mints a credential)
bad.v1.S	SignBlob	post /v1/{name=shelves/*}:signBlob	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method SignBlob bound to post: /v1/{name=shelves/*}:signBlob; destructive: destructive verb Sign*
bad.v1.S	TidyShelf	post /v1/{name=shelves/*}:tidy	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method TidyShelf bound to post: /v1/{name=shelves/*}:tidy; destructive: comment says "cannot be undone"
bad.v1.S	UpdateShelfDdl	post /v1/{name=shelves/*}:updateDdl	UPDATE	DESTRUCTIVE_UPDATE	ELICIT	custom method UpdateShelfDdl bound to post: /v1/{name=shelves/*}:updateDdl; destructive: request field statements (statements can drop or overwrite data)
bad.v1.S	ArchiveBooks	post /v1/{name=shelves/*}:archive	DELETE	DESTRUCTIVE_DELETE	ELICIT	custom method ArchiveBooks bound to post: /v1/{name=shelves/*}:archive; destructive: request field filter (a bulk selector without etag)
bad.v1.S	RenameShelf	post /v1/{name=shelves/*}:rename	UPDATE	DESTRUCTIVE_UPDATE	ELICIT	custom method RenameShelf bound to post: /v1/{name=shelves/*}:rename; idempotency_level IDEMPOTENT (safe to retry, not evidence of a safe write); destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
bad.v1.S	Shelve	post /v1/{name=shelves/*}:shelve	ACTION	SAFE_UPDATE	DIRECT	custom method Shelve bound to post: /v1/{name=shelves/*}:shelve; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE}); classification SAFE_UPDATE from the tool option
bad.v1.S	AddBook	-	CREATE	DESTRUCTIVE_UPDATE	ELICIT	method name AddBook; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
`
	if got := reviewOf(t, src); got != want {
		t.Errorf("review:\n%s", lineDiff(want, got))
	}
}

// Reads are reads whatever their HTTP verb: AIP-136 custom methods whose
// verb reads, unless their name, response, request or comment says they
// change something (a long-running operation too: the corpus sweep
// pins AnalyzeIamPolicyLongrunning); a get binding does not make a destructive verb or a
// long-running operation a read.
func TestReadsAreReadsWhateverTheirHTTPVerb(t *testing.T) {
	src := `
import "google/api/annotations.proto";
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc QueryBooks(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:queryBooks" body: "*"}; }
  rpc LintShelf(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:lint" body: "*"}; }
  rpc BatchGetBooks(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}/books:batchGet" body: "*"}; }
  rpc TestShelfPermissions(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:testPermissions" body: "*"}; }
  rpc Tally(Req) returns (Book) { option idempotency_level = NO_SIDE_EFFECTS; }
  rpc CheckAndMutateBook(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:checkAndMutate" body: "*"}; }
  rpc SearchShelves(ExportRequest) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:search" body: "*"}; }
  rpc ValidateShelf(ValidateRequest) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:validate" body: "*"}; }
  // Checks a shelf and stores the result.
  rpc CheckShelf(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:check" body: "*"}; }
  rpc RestoreShelf(Req) returns (Book) { option (google.api.http) = {get: "/v1/{name=shelves/*}:restore"}; }
  rpc GenerateShelfUrl(Req) returns (Book) { option (google.api.http) = {post: "/v1/{name=shelves/*}:generateUrl" body: "*"}; }
  rpc GetShelf(Req) returns (Book);
}
message Book { string name = 1; }
message Req { string name = 1; }
message ValidateRequest { string name = 1; string request_id = 2; }
message ExportRequest { string name = 1; string gcs_destination = 2; }`
	want := `bad.v1.S	QueryBooks	post /v1/{name=shelves/*}:queryBooks	READ	READ_ONLY	-	read verb Query* bound to post: /v1/{name=shelves/*}:queryBooks
bad.v1.S	LintShelf	post /v1/{name=shelves/*}:lint	READ	READ_ONLY	-	read verb Lint* bound to post: /v1/{name=shelves/*}:lint
bad.v1.S	BatchGetBooks	post /v1/{name=shelves/*}/books:batchGet	READ	READ_ONLY	-	read verb BatchGet* bound to post: /v1/{name=shelves/*}/books:batchGet
bad.v1.S	TestShelfPermissions	post /v1/{name=shelves/*}:testPermissions	READ	READ_ONLY	-	read verb Test* bound to post: /v1/{name=shelves/*}:testPermissions
bad.v1.S	Tally	-	READ	READ_ONLY	-	idempotency_level NO_SIDE_EFFECTS
bad.v1.S	CheckAndMutateBook	post /v1/{name=shelves/*}:checkAndMutate	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method CheckAndMutateBook bound to post: /v1/{name=shelves/*}:checkAndMutate; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
bad.v1.S	SearchShelves	post /v1/{name=shelves/*}:search	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method SearchShelves bound to post: /v1/{name=shelves/*}:search; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
bad.v1.S	ValidateShelf	post /v1/{name=shelves/*}:validate	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method ValidateShelf bound to post: /v1/{name=shelves/*}:validate; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
bad.v1.S	CheckShelf	post /v1/{name=shelves/*}:check	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method CheckShelf bound to post: /v1/{name=shelves/*}:check; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
bad.v1.S	RestoreShelf	get /v1/{name=shelves/*}:restore	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method RestoreShelf bound to get: /v1/{name=shelves/*}:restore; destructive: destructive verb Restore*
bad.v1.S	GenerateShelfUrl	post /v1/{name=shelves/*}:generateUrl	ACTION	DESTRUCTIVE_UPDATE	ELICIT	custom method GenerateShelfUrl bound to post: /v1/{name=shelves/*}:generateUrl; destructive: destructive verb Generate*Url (mints a credential)
bad.v1.S	GetShelf	-	ACTION	DESTRUCTIVE_UPDATE	ELICIT	method name GetShelf; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})
`
	if got := reviewOf(t, src); got != want {
		t.Errorf("review:\n%s", lineDiff(want, got))
	}
}

// lineDiff lists the lines of want and got that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString(" want: " + wl + "\n  got: " + gl + "\n")
		}
	}
	return b.String()
}

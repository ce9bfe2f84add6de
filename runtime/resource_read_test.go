package runtime

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// bookResource is a resource entry as the generator writes it.
var bookResource = schemadoc.Resource{Tool: "get_book", Name: "get_book", Type: "library.example.com/Book",
	Pattern: "shelves/{shelf}/books/{book}", URITemplate: "aip://library.example.com/shelves/{shelf}/books/{book}", NameField: "name"}

// A URI maps back to exactly the name the pattern makes; anything else is
// an error that says how the URI misses the pattern.
func TestResourceURIMapsBackToTheName(t *testing.T) {
	p, err := parseResourcePattern(bookResource)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ uri, name, err string }{
		{"aip://library.example.com/shelves/s1/books/b1", "shelves/s1/books/b1", ""},
		{"aip://library.example.com/shelves/my%20shelf/books/b1", "shelves/my shelf/books/b1", ""},
		{"aip://library.example.com/shelves/s1/books/b1?view=full", "", `resource URI "aip://library.example.com/shelves/s1/books/b1?view=full" has a query or a fragment, which a resource name cannot carry`},
		{"aip://library.example.com/shelves/s1/books", "", `resource URI "aip://library.example.com/shelves/s1/books" has 3 path segments after aip://library.example.com/ where the pattern shelves/{shelf}/books/{book} has 4`},
		{"aip://library.example.com/shelves/s1/authors/b1", "", `resource URI "aip://library.example.com/shelves/s1/authors/b1" has "authors" where the pattern shelves/{shelf}/books/{book} has "books"`},
		{"aip://other.example.com/shelves/s1/books/b1", "", `resource URI "aip://other.example.com/shelves/s1/books/b1" does not start with aip://library.example.com/`},
		{"aip://library.example.com/shelves/s1/books/%zz", "", `resource URI "aip://library.example.com/shelves/s1/books/%zz" segment 4 ("%zz") is not valid percent-encoding`},
		{"aip://library.example.com/shelves/a%2Fb/books/b1", "", `resource URI "aip://library.example.com/shelves/a%2Fb/books/b1" puts a "/" inside {shelf}, which must be one path segment`},
		{"aip://library.example.com/shelves/s1/books/", "", `resource URI "aip://library.example.com/shelves/s1/books/" leaves {book} empty`},
	}
	for _, c := range cases {
		name, e := p.nameOf(c.uri)
		got := ""
		if e != nil {
			got = e.Message
			if e.Code != CodeConstraintViolation || e.Field != "name" {
				t.Errorf("%s: error %s on %q, want CONSTRAINT_VIOLATION on name", c.uri, e.Code, e.Field)
			}
		}
		if name != c.name || got != c.err {
			t.Errorf("%s:\n got %q, %q\nwant %q, %q", c.uri, name, got, c.name, c.err)
		}
	}
}

// A document whose resource names no read tool, or whose template does
// not follow its pattern, is refused when the service registers.
func TestResourceEntriesAreCheckedAtRegistration(t *testing.T) {
	cases := []struct {
		name string
		edit func(*schemadoc.Resource)
		want string
	}{
		{"unknown tool", func(r *schemadoc.Resource) { r.Tool = "get_author" }, `resource "get_book": tool "get_author" is not a tool of the service`},
		{"template off the pattern", func(r *schemadoc.Resource) { r.URITemplate = "aip://library.example.com/books/{book}" },
			`resource "get_book": URI template "aip://library.example.com/books/{book}" is not scheme://host/ and the pattern "shelves/{shelf}/books/{book}"`},
		{"bad variable", func(r *schemadoc.Resource) {
			r.Pattern, r.URITemplate = "shelves/{Shelf}", "aip://library.example.com/shelves/{Shelf}"
		}, `resource "get_book": pattern "shelves/{Shelf}": segment "{Shelf}" is neither a collection id nor a {variable}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := bookResource
			c.edit(&res)
			r := &registry{svc: &schemadoc.Service{Resources: []schemadoc.Resource{res}}, tools: map[string]*boundTool{"get_book": {read: true, doc: &schemadoc.Tool{Name: "get_book"}}}}
			_, err := (serviceResources{r}).specs(nil)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error\n got: %v\nwant: %s", err, c.want)
			}
		})
	}
	r := &registry{svc: &schemadoc.Service{Resources: []schemadoc.Resource{bookResource}}, tools: map[string]*boundTool{"get_book": {doc: &schemadoc.Tool{Name: "get_book"}}}}
	if _, err := (serviceResources{r}).specs(nil); err == nil || err.Error() != `resource "get_book": tool "get_book" is not a read tool; only a read can serve a resource` {
		t.Fatalf("a write tool: %v", err)
	}
	if b, _ := json.Marshal(bookResource); string(b) != `{"tool":"get_book","name":"get_book","type":"library.example.com/Book","pattern":"shelves/{shelf}/books/{book}","uri_template":"aip://library.example.com/shelves/{shelf}/books/{book}","name_field":"name"}` {
		t.Fatalf("document entry: %s", b)
	}
}

package bench

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The generation benchmark is only meaningful if the plugin accepts the
// corpus and emits one tool per method; a rejected corpus would time the
// error path.
func TestCorpusGeneratesOneToolPerMethod(t *testing.T) {
	tests := []struct {
		name           string
		files, methods int
		wantFiles      []string
		wantTools      []string
	}{
		{
			name: "one file, every verb", files: 1, methods: 4,
			wantFiles: []string{"corpus/f00/v1/f00v1mcpwrite/f00.mcpwrite.go", "corpus/f00/v1/f00v1mcpwrite/f00.mcpwrite.json"},
			wantTools: []string{"create_item0", "update_item1", "delete_item2", "archive_item3"},
		},
		{
			name: "two files", files: 2, methods: 2,
			wantFiles: []string{
				"corpus/f00/v1/f00v1mcpwrite/f00.mcpwrite.go", "corpus/f00/v1/f00v1mcpwrite/f00.mcpwrite.json",
				"corpus/f01/v1/f01v1mcpwrite/f01.mcpwrite.go", "corpus/f01/v1/f01v1mcpwrite/f01.mcpwrite.json",
			},
			wantTools: []string{"create_item0", "update_item1", "create_item0", "update_item1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files, err := writeCorpus(dir, tt.files, tt.methods)
			if err != nil {
				t.Fatal(err)
			}
			req, err := plugintest.Request(corpusImportPaths(dir), files, corpusParam)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := plugintest.Run(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetError() != "" {
				t.Fatalf("plugin rejected the corpus: %s", resp.GetError())
			}
			var names, tools []string
			for _, f := range resp.GetFile() {
				names = append(names, f.GetName())
				var doc schemadoc.Document
				if json.Unmarshal([]byte(f.GetContent()), &doc) != nil {
					continue
				}
				for _, s := range doc.Services {
					for _, tl := range s.Tools {
						tools = append(tools, tl.Name)
					}
				}
			}
			if diff := cmp.Diff(tt.wantFiles, names); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTools, tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

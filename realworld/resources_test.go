package realworld

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// kmsLocation is the URI prefix of every Cloud KMS resource's template.
const kmsLocation = "cloudkms.googleapis.com/projects/{project}/locations/{location}"

// Public APIs adopted with the two lines and resources: true in the same
// option serve their standard Gets as resource templates that follow the
// resources' own patterns; the Gets that cannot be resources are named.
func TestRealworldGetsBecomeResources(t *testing.T) {
	skipWithoutCorpus(t)
	for _, c := range []struct{ file, templates, warnings string }{
		{"google/example/library/v1/library.proto",
			"get_shelf aip://library-example.googleapis.com/shelves/{shelf_id}\n" +
				"get_book aip://library-example.googleapis.com/shelves/{shelf}/books/{book}", ""},
		// GetIamPolicy (a GetIamPolicyRequest answered by a Policy) is not a
		// standard Get: no template, no warning.
		{"google/cloud/secretmanager/v1/service.proto",
			"get_secret aip://secretmanager.googleapis.com/projects/{project}/secrets/{secret}\n" +
				"get_secret aip://secretmanager.googleapis.com/projects/{project}/locations/{location}/secrets/{secret}\n" +
				"get_secret_version aip://secretmanager.googleapis.com/projects/{project}/secrets/{secret}/versions/{secret_version}\n" +
				"get_secret_version aip://secretmanager.googleapis.com/projects/{project}/locations/{location}/secrets/{secret}/versions/{secret_version}", ""},
		{"google/cloud/kms/v1/service.proto",
			"get_key_ring aip://%[1]s/keyRings/{key_ring}\n" +
				"get_crypto_key aip://%[1]s/keyRings/{key_ring}/cryptoKeys/{crypto_key}\n" +
				"get_crypto_key_version aip://%[1]s/keyRings/{key_ring}/cryptoKeys/{crypto_key}/cryptoKeyVersions/{crypto_key_version}\n" +
				"get_public_key aip://%[1]s/keyRings/{key_ring}/cryptoKeys/{crypto_key}/cryptoKeyVersions/{crypto_key_version}/publicKey\n" +
				"get_import_job aip://%[1]s/keyRings/{key_ring}/importJobs/{import_job}\n" +
				"get_retired_resource aip://%[1]s/retiredResources/{retired_resource}", ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(protosDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			adopted, err := adopt(src)
			if err != nil {
				t.Fatal(err)
			}
			adopted = bytes.ReplaceAll(adopted, []byte(exposeLine), []byte(`  option (mcpwrite.v1.service) = {expose: ALL resources: true};`))
			overlay := t.TempDir()
			dst := filepath.Join(overlay, c.file)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, adopted, 0o644); err != nil {
				t.Fatal(err)
			}
			req, err := plugintest.Request([]string{overlay, protosDir, annotationsDir, protovalidateDir}, []string{c.file}, "paths=source_relative")
			if err != nil {
				t.Fatal(err)
			}
			p, err := protogen.Options{}.New(req)
			if err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			if err := gen.Generate(p, gen.Config{Warn: &warn}); err != nil {
				t.Fatal(err)
			}
			var templates []string
			for _, f := range gen.Response(p).File {
				if !strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
					continue
				}
				var d struct {
					Services []struct {
						Resources []struct {
							Tool        string `json:"tool"`
							URITemplate string `json:"uri_template"`
						} `json:"resources"`
					} `json:"services"`
				}
				if err := json.Unmarshal([]byte(f.GetContent()), &d); err != nil {
					t.Fatal(err)
				}
				for _, s := range d.Services {
					for _, r := range s.Resources {
						templates = append(templates, r.Tool+" "+r.URITemplate)
					}
				}
			}
			want := strings.ReplaceAll(c.templates, "%[1]s", kmsLocation)
			if got := strings.Join(templates, "\n"); got != want {
				t.Errorf("templates\n got: %s\nwant: %s", got, want)
			}
			var resourceWarnings []string
			for _, l := range strings.Split(warn.String(), "\n") {
				if strings.Contains(l, "resource") {
					resourceWarnings = append(resourceWarnings, l)
				}
			}
			if got := strings.Join(resourceWarnings, "\n"); got != c.warnings {
				t.Errorf("warnings\n got: %s\nwant: %s", got, c.warnings)
			}
		})
	}
}

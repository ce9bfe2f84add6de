// Package golden holds the plugin's golden cases: each testdata/<case>/input
// directory is compiled in process, run through protoc-gen-mcpwrite and
// compared byte for byte with testdata/<case>/want. Run
// `go test ./golden -run TestGolden -update` to rewrite the expected files.
package golden

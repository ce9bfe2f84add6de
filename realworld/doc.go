// Package realworld proves adoption on public AIP-style APIs: each corpus
// file, taken pinned from the npm package google-proto-files (installed by
// make realworld-deps into realworld/node_modules), gets the two adoption
// lines and nothing else, is generated in process, and its tools are
// checked (docs/existing-apis.md).
package realworld

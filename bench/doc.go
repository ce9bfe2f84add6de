// Package bench holds the product's speed and size benchmarks. Every goal is
// a ratio against a baseline measured in the same run (protoc-gen-go,
// protojson, a hand-written go-sdk tool), so results compare across
// machines; cmd/benchtable turns the go test output into the goal table
// that `make bench` prints.
package bench

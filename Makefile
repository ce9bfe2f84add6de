# protoc-gen-mcpwrite: make (or make help) lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

TOOLS := $(CURDIR)/.tools/bin
BUF := $(CURDIR)/tools/node_modules/.bin/buf
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
PROTOC_GEN_CONNECT_GO_VERSION := v1.21.1
STATICCHECK_VERSION := v0.8.2
# benchstat (golang.org/x/perf) summarises every metric of make bench with its
# confidence interval; run with go run at this version, outside go.mod.
BENCHSTAT_VERSION := v0.0.0-20260908200009-22c9c6c9d4da
EXAMPLES := $(patsubst examples/%/buf.gen.yaml,%,$(wildcard examples/*/buf.gen.yaml))
export PATH := $(TOOLS):$(PATH)

.PHONY: help
help: ## Show this help
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-14s %s\n", $$1, $$2}'

.PHONY: tools
tools: $(TOOLS)/protoc-gen-go $(TOOLS)/protoc-gen-go-grpc $(TOOLS)/protoc-gen-connect-go $(TOOLS)/staticcheck $(BUF) ## Install pinned tools (buf from npm, protoc-gen-go, protoc-gen-go-grpc, protoc-gen-connect-go, staticcheck)

$(TOOLS)/protoc-gen-go:
	GOBIN=$(TOOLS) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(TOOLS)/protoc-gen-go-grpc:
	GOBIN=$(TOOLS) go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

$(TOOLS)/protoc-gen-connect-go:
	GOBIN=$(TOOLS) go install connectrpc.com/connect/cmd/protoc-gen-connect-go@$(PROTOC_GEN_CONNECT_GO_VERSION)

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(BUF): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $(BUF)

.PHONY: build
build: ## Build the plugin into .tools/bin (static, as the install instructions build it)
	CGO_ENABLED=0 go build -o $(TOOLS)/protoc-gen-mcpwrite ./cmd/protoc-gen-mcpwrite

.PHONY: generate
generate: tools build ## Regenerate the annotations, every example and the golden files
	cd annotations && $(BUF) generate
	@for ex in $(EXAMPLES); do echo "buf generate examples/$$ex"; $(BUF) generate examples/$$ex/proto --template examples/$$ex/buf.gen.yaml; done
	$(BUF) generate golden/e2e/outline/proto --template golden/e2e/outline/buf.gen.yaml
	$(BUF) generate golden/e2e/batch/proto --template golden/e2e/batch/buf.gen.yaml
	$(BUF) generate golden/e2e/lro/proto --template golden/e2e/lro/buf.gen.yaml
	$(BUF) generate golden/e2e/resources/proto --template golden/e2e/resources/buf.gen.yaml
	$(BUF) generate golden/e2e/anyinput/proto --template golden/e2e/anyinput/buf.gen.yaml
	$(BUF) generate golden/e2e/checked/proto --template golden/e2e/checked/buf.gen.yaml
	$(BUF) generate golden/e2e/mcpgoonly/proto --template golden/e2e/mcpgoonly/buf.gen.yaml
	go test ./golden -run '^TestGolden$$' -update >/dev/null

.PHONY: checkgenerate
checkgenerate: generate ## Fail if generated code differs from what is committed
	@if [ -n "$$(git status --porcelain -- annotations examples golden)" ]; then \
		echo "generated code is out of date; run make generate and commit:"; \
		git status --porcelain -- annotations examples golden; git diff --stat -- annotations examples golden; exit 1; fi
	@echo "generated code is up to date"

# GOTESTFLAGS adds go test flags (.ci/run: -race); TESTREPORT_FLAGS makes the
# report strict (.ci/run: -require-stores, -allow-skips, -min-tests, -figures).
# Neither is read from the environment's CI variable. -timeout 20m: on a
# loaded 2-core machine examples/archimate (its kill -9 test alone took 335 s
# at load average 35) passed go test's default 10 minutes per package.
GOTESTFLAGS ?=
TESTREPORT_FLAGS ?=

.PHONY: test
test: build realworld-deps interop-deps ## Run every test: one line per package, the slowest packages and tests, then failures, skips by reason and counts (full output in .test-output/test.json, counts in .test-output/summary.txt)
	go test $(GOTESTFLAGS) -count=1 -timeout 20m -json ./... 2>&1 | go run ./internal/testreport -json .test-output/test.json -summary .test-output/summary.txt -slowest 10 $(TESTREPORT_FLAGS)

.PHONY: lint
lint: tools ## go vet, gofmt, staticcheck and buf lint
	go vet ./...
	staticcheck ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(BUF) lint

# The PostgreSQL benchmarks: longer runs (their contenders alternate in rounds of many writes),
# with the Go runtime settings docs/production.md recommends for a server instance.
DURABLE_BENCH := ^Benchmark(DurableWrite|TenantGrowth|Instances)$$
DURABLE_GC := GOGC=400 GOMEMLIMIT=1GiB
.PHONY: bench
bench: build ## Run the benchmarks, commit-ready: raw run in bench/results/raw.txt, the proof table of docs/benchmarks.md regenerated (the durable ones need MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR)
	@$(MAKE) $(TOOLS)/protoc-gen-go
	@mkdir -p bench/results
	@if [ -z "$${MCPWRITE_TEST_POSTGRES_DSN:-}" ]; then echo "MCPWRITE_TEST_POSTGRES_DSN is not set: the durable benchmarks (PostgreSQL floor, tenant growth, instances) will not run"; fi
	{ echo "# date: $$(date -u +%Y-%m-%d)"; echo "# machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo)"; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start"; \
	  go test -run '^$$' -bench . -skip '$(DURABLE_BENCH)' -benchmem -benchtime 1s -count 6 -timeout 25m ./bench; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) before the PostgreSQL benchmarks"; \
	  echo "# gc: $(DURABLE_GC) for the PostgreSQL benchmarks (docs/production.md)"; \
	  $(DURABLE_GC) go test -run '^$$' -bench '$(DURABLE_BENCH)' -benchtime 3s -count 6 -timeout 25m ./bench; } | tee bench/results/raw.txt
	rm -f bench/results/sdk.txt bench/results/generate.txt
	go run ./bench/cmd/benchtable -q -readme docs/benchmarks.md < bench/results/raw.txt
	go run golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION) bench/results/raw.txt > bench/results/benchstat.txt

.PHONY: bench-sdk
bench-sdk: build ## Re-run only the SDK comparison (BenchmarkDurableWrite on both SDKs, BenchmarkSDKOverhead) into bench/results/sdk.txt, which replaces those benchmarks of raw.txt in docs/benchmarks.md (make bench supersedes it)
	@if [ -z "$${MCPWRITE_TEST_POSTGRES_DSN:-}" ]; then echo "set MCPWRITE_TEST_POSTGRES_DSN (and MCPWRITE_TEST_REDIS_ADDR): BenchmarkDurableWrite needs PostgreSQL"; exit 1; fi
	{ echo "# date: $$(date -u +%Y-%m-%d)"; echo "# machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo)"; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start"; \
	  go test -run '^$$' -bench '^BenchmarkSDKOverhead$$' -benchmem -benchtime 1s -count 6 -timeout 25m ./bench; \
	  echo "# gc: $(DURABLE_GC) for the PostgreSQL benchmarks (docs/production.md)"; \
	  $(DURABLE_GC) go test -run '^$$' -bench '^BenchmarkDurableWrite$$' -benchtime 3s -count 6 -timeout 25m ./bench; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the end"; } | tee bench/results/sdk.txt
	go run ./bench/cmd/benchtable -q -readme docs/benchmarks.md -overlay bench/results/sdk.txt -overlay bench/results/generate.txt < bench/results/raw.txt

.PHONY: bench-ourcpu
bench-ourcpu: build ## Re-run only BenchmarkOurCPU (this module's CPU and bytes per keyed durable write by phase, beside pgx's, the SDK's and net/http's; both SDKs and the trivial mcp-go tool for comparison, 1, 8 and 32 clients) into bench/results/ourcpu.txt
	@if [ -z "$${MCPWRITE_TEST_POSTGRES_DSN:-}" ]; then echo "set MCPWRITE_TEST_POSTGRES_DSN (and MCPWRITE_TEST_REDIS_ADDR): BenchmarkOurCPU needs PostgreSQL"; exit 1; fi
	{ echo "# date: $$(date -u +%Y-%m-%d)"; echo "# machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo)"; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start"; \
	  echo "# gc: $(DURABLE_GC) (docs/production.md)"; \
	  $(DURABLE_GC) go test -run '^$$' -bench '^BenchmarkOurCPU$$' -benchtime 8s -count 3 -timeout 25m ./bench; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the end"; } | tee bench/results/ourcpu.txt

.PHONY: bench-generate
bench-generate: build ## Re-run only BenchmarkGenerate (10 to 5,000 methods, against protoc-gen-go) into bench/results/generate.txt, which replaces it in docs/benchmarks.md (make bench supersedes it)
	@$(MAKE) $(TOOLS)/protoc-gen-go
	{ echo "# date: $$(date -u +%Y-%m-%d)"; echo "# machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo)"; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start"; \
	  go test -run '^$$' -bench '^BenchmarkGenerate$$' -benchtime 1s -count 5 -timeout 25m ./bench; \
	  echo "# load: load average $$(cut -d' ' -f1-3 /proc/loadavg) at the end"; } | tee bench/results/generate.txt
	go run ./bench/cmd/benchtable -q -readme docs/benchmarks.md -overlay bench/results/sdk.txt -overlay bench/results/generate.txt < bench/results/raw.txt

.PHONY: demo
demo: ## Run a scripted agent session against the reference example (committed code; drift is checkgenerate's job)
	go run ./examples/archimate/cmd/demo

.PHONY: realworld-deps
realworld-deps: ## Install the pinned realworld corpus (npm google-proto-files) into realworld/node_modules (again only when the lock file changes)
	@stamp=realworld/node_modules/.installed; \
	if [ ! -f $$stamp ] || [ realworld/package-lock.json -nt $$stamp ] || [ realworld/package.json -nt $$stamp ]; then \
		echo "cd realworld && npm ci"; \
		(cd realworld && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) && touch $$stamp; \
	fi

.PHONY: realworld
realworld: realworld-deps ## Adopt public AIP APIs with the two lines only, generate, compile and check them
	go test -count=1 ./realworld

.PHONY: protoc-check
protoc-check: build ## Generate proto3 examples (one with buf.validate) and a proto2 golden case with the system protoc and compare with the committed code
	@command -v protoc >/dev/null || { echo "protoc not found: apt-get install protobuf-compiler"; exit 1; }
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	protoc --plugin=protoc-gen-mcpwrite=$(TOOLS)/protoc-gen-mcpwrite -I annotations -I examples/archimate/proto \
		--mcpwrite_out="$$out" --mcpwrite_opt=paths=source_relative,connect=true archimate/v1/archimate.proto; \
	diff -r "$$out/archimate/v1/archimatev1mcpwrite" examples/archimate/gen/archimate/v1/archimatev1mcpwrite; \
	protoc --plugin=protoc-gen-mcpwrite=$(TOOLS)/protoc-gen-mcpwrite -I annotations -I golden/testdata/proto2_presence/input \
		--mcpwrite_out="$$out" --mcpwrite_opt=paths=source_relative legacy/v1/ledger.proto; \
	diff -r "$$out/legacy/v1/legacyv1mcpwrite" golden/testdata/proto2_presence/want/legacy/v1/legacyv1mcpwrite; \
	protoc --plugin=protoc-gen-mcpwrite=$(TOOLS)/protoc-gen-mcpwrite -I annotations -I third_party/protovalidate -I examples/purchasing/proto \
		--mcpwrite_out="$$out" --mcpwrite_opt=paths=source_relative purchasing/v1/purchasing.proto; \
	diff -r "$$out/purchasing/v1/purchasingv1mcpwrite" examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite; \
	echo "protoc $$(protoc --version | cut -d' ' -f2): proto3 (archimate, purchasing with buf.validate) and proto2 (golden proto2_presence) output equal the committed code"

# QUICKSTART_FLAGS=--require-stores (.ci/run) fails instead of passing over
# the stores step when MCPWRITE_TEST_POSTGRES_DSN or MCPWRITE_TEST_REDIS_ADDR is unset.
QUICKSTART_FLAGS ?=

.PHONY: quickstart
quickstart: tools ## Run the capability-repo quickstart in a fresh directory outside the checkout (docs/getting-started.md, its CI workflow, docs/own-server.md's stores)
	quickstart/run.sh $(QUICKSTART_FLAGS)

.PHONY: interop
interop: ## Drive the example servers with pinned third-party MCP clients (Inspector CLI, TypeScript SDK, conformance suite; all five over stdio and bearer HTTP)
	@for ex in $(EXAMPLES); do echo "go build -o $(TOOLS)/$$ex-server ./examples/$$ex/cmd/$$ex-server"; go build -o $(TOOLS)/$$ex-server ./examples/$$ex/cmd/$$ex-server; done
	@$(MAKE) interop-deps
	interop/run.sh $(TOOLS)/archimate-server

.PHONY: interop-deps
interop-deps: ## Install the pinned MCP clients and validators (npm) into interop/node_modules (again only when the lock file changes); make test's Ajv strict check uses them
	@stamp=interop/node_modules/.installed; \
	if [ ! -f $$stamp ] || [ interop/package-lock.json -nt $$stamp ] || [ interop/package.json -nt $$stamp ]; then \
		echo "cd interop && npm ci"; \
		(cd interop && npm ci --include=dev --prefer-offline --no-audit --no-fund --loglevel=error) && touch $$stamp; \
	fi

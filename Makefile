# toolerr — build and test. `make test` is what CI runs (through .ci/run).

GO ?= go
# plugin/toolerr.wasm is built by TinyGo (plugin/tinygo/build.sh installs the
# pinned toolchain outside the clone and records it in toolerr.wasm.build);
# another toolchain gives other bytes. The standard Go build stays as
# `make wasm-std` (bin/toolerr-std.wasm, not committed) for the benchmarks.
WASM_GO_VERSION := go1.26.8
WASM_STD_FLAGS := -trimpath -ldflags="-s -w -buildid=" -buildmode=c-shared
WASM_STD_OUT := bin/toolerr-std.wasm

.PHONY: generate generate-check all bench heal-bench fuzz fuzz-smoke stress wasm wasm-std wasm-toolchain wasm-check test test-go test-node test-python test-install test-rust test-java prepare conformance e2e vet fmt-check tidy-check

all: wasm test

# wasm rebuilds the committed artifact with TinyGo, its digest and its build
# record: git holds the module only there. The bindings' packages take it
# from plugin/ when they are built (bindings/*/README.md say how).
wasm:
	bash plugin/tinygo/build.sh plugin/toolerr.wasm
	cd plugin && sha256sum toolerr.wasm > toolerr.wasm.sha256

# generate writes every file made from abi/abi.json (the ABI's one source):
# Go types and constants, the core's export table and request fields, the
# module's export glue, abi/ABI.md's tables and each binding's types and
# policy defaults. generate-check fails when one of them is stale.
generate:
	$(GO) run ./abi/gen

generate-check:
	$(GO) run ./abi/gen -check

# wasm-toolchain installs (or finds in its cache) the pinned TinyGo.
wasm-toolchain:
	bash plugin/tinygo/toolchain.sh

# wasm-std builds the module with the standard Go toolchain, for comparison;
# it is not shipped.
wasm-std:
	@test "$$($(GO) env GOVERSION)" = "$(WASM_GO_VERSION)" || { echo "make wasm-std needs $(WASM_GO_VERSION), have $$($(GO) env GOVERSION)"; exit 1; }
	@mkdir -p bin
	CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm $(GO) build $(WASM_STD_FLAGS) -o $(WASM_STD_OUT) ./plugin/wasm
	printf 'toolchain: %s\nenv: CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm\nflags: %s\nsource: ./plugin/wasm\n' "$(WASM_GO_VERSION)" '$(WASM_STD_FLAGS)' > $(WASM_STD_OUT).build

# wasm-check fails when the committed artifact is not what the sources build.
wasm-check: wasm
	git diff --exit-code -- plugin/toolerr.wasm plugin/toolerr.wasm.sha256 plugin/toolerr.wasm.build

vet:
	$(GO) vet ./...
	CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm $(GO) vet ./plugin/wasm

fmt-check:
	@out="$$(gofmt -l .)"; test -z "$$out" || { echo "gofmt needed:"; echo "$$out"; exit 1; }

tidy-check:
	$(GO) mod tidy
	git diff --exit-code -- go.mod go.sum

GOTESTFLAGS ?=
test-go:
	$(GO) test -count=1 $(GOTESTFLAGS) ./...

# prepare installs every language's dependencies from committed lockfiles
# and pinned requirements (Maven's from the pinned versions of the poms),
# and builds the example servers.
prepare:
	bash examples/node/prepare.sh
	npm ci --prefix tests/realservers --no-audit --no-fund
	bash bindings/python/venv.sh
	.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r tests/realservers/requirements.txt
	bash examples/rust/build.sh
	bash examples/java/build.sh
	$(GO) build -o bin/billing-go ./examples/go
	$(GO) build -o bin/quickstart-go ./examples/go/quickstart
	$(GO) build -o bin/toolerr ./host/cmd/toolerr

test-node: prepare
	bash bindings/node/test.sh

test-python: prepare
	bash bindings/python/test.sh

# test-install: the bindings installed as a user would, outside the
# repository (tests/install/run.sh).
test-install: prepare
	bash tests/install/run.sh

test-rust: prepare
	bash bindings/rust/test.sh

# test-java: the Java binding's JUnit 5 tests (Maven, with its repository in
# ~/.m2 outside the clone, offline once filled: bindings/java/maven.sh).
test-java: prepare
	TOOLERR_PREPARED=1 bash bindings/java/test.sh

# conformance: every vector through every engine's batch command.
conformance: prepare
	$(GO) run ./tests/conformance

# e2e: the same MCP session against every example server.
e2e: prepare
	$(GO) run ./tests/e2e -skip-prepare

# fuzz runs every fuzz target for FUZZTIME; fuzz-smoke, a few seconds each,
# is part of make test.
FUZZTIME ?= 60s
FUZZ_TARGETS := FuzzEscape FuzzRoundTrip FuzzParse FuzzABI FuzzGate

fuzz:
	for t in $(FUZZ_TARGETS); do $(GO) test ./plugin/internal/dispatch -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) || exit 1; done

fuzz-smoke:
	$(MAKE) fuzz FUZZTIME=3s

# stress: 8 callers x 100,000 mixed calls per Go engine, every result
# compared with the native core's.
stress:
	$(GO) test -count=1 -timeout=60m -run='^(TestStress|TestMemory_Flat)$$' ./host -stress.calls=100000 -memflat.calls=1000000 -v

# test runs every phase once, in order, each as one line of progress with
# its time and test counts (logs in bin/test-logs/); installs happen once,
# in the prepare phase, and the language suites run without repeating them.
#
# The whole run holds one Cargo target folder, a slot of the pool under
# ~/.cache/toolerr/cargo-target locked until make test ends (tests/cargo-target.sh):
# without CARGO_TARGET_DIR, make test takes a slot and runs itself again
# with it, so prepare's build, the rust and install phases and
# conformance's Rust engine all use it, and a concurrent run of another
# checkout takes another slot instead of waiting for this one.
PHASE := bash tests/phase.sh
SUB := $(MAKE) --no-print-directory
test:
ifeq ($(CARGO_TARGET_DIR),)
	@bash tests/cargo-target.sh $(SUB) test
else
	@$(PHASE) prepare $(SUB) prepare
	@$(PHASE) vet $(SUB) vet fmt-check
	@$(PHASE) go $(SUB) test-go GOTESTFLAGS=-v
	@$(PHASE) fuzz $(SUB) fuzz-smoke
	@$(PHASE) node env TOOLERR_PREPARED=1 bash bindings/node/test.sh
	@$(PHASE) python env TOOLERR_PREPARED=1 bash bindings/python/test.sh
	@$(PHASE) install bash tests/install/run.sh
	@$(PHASE) rust env TOOLERR_PREPARED=1 bash bindings/rust/test.sh
	@$(PHASE) java env TOOLERR_PREPARED=1 bash bindings/java/test.sh
	@$(PHASE) conformance $(GO) run ./tests/conformance
	@$(PHASE) e2e $(GO) run ./tests/e2e -skip-prepare
	@$(PHASE) --total
endif

# bench measures every engine on the same requests and writes BENCHMARKS.md
# and docs/bench.svg.
bench: prepare
	bash tests/heal/build.sh
	bash tests/cargo-target.sh $(GO) run ./tests/bench

# heal-bench measures what a model reads when its tool call is wrong, on
# every heal path and toolerr proxy against the SDKs' own texts, and writes
# docs/HEALING.md (tests/heal/README.md). Not part of make test; `go test
# ./tests/heal` is.
heal-bench:
	bash tests/heal/build.sh
	$(GO) run ./tests/heal

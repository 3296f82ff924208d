# toolerr — build and test. `make test` is what CI runs.

GO ?= go
# The toolchain that builds plugin/toolerr.wasm; another one gives other bytes.
WASM_GO_VERSION := go1.26.8
WASM_FLAGS := -trimpath -ldflags="-s -w -buildid=" -buildmode=c-shared

.PHONY: all wasm wasm-check test test-go vet fmt-check tidy-check

all: wasm test

# wasm rebuilds the committed artifact, its digest and its build record.
wasm:
	@test "$$($(GO) env GOVERSION)" = "$(WASM_GO_VERSION)" || { echo "make wasm needs $(WASM_GO_VERSION), have $$($(GO) env GOVERSION)"; exit 1; }
	CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm $(GO) build $(WASM_FLAGS) -o plugin/toolerr.wasm ./plugin/wasm
	cd plugin && sha256sum toolerr.wasm > toolerr.wasm.sha256
	python3 bindings/python/scripts/sync_wasm.py
	node bindings/node/scripts/sync-wasm.mjs
	printf 'toolchain: %s\nenv: CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm\nflags: %s\nsource: ./plugin/wasm\n' "$(WASM_GO_VERSION)" '$(WASM_FLAGS)' > plugin/toolerr.wasm.build

# wasm-check fails when the committed artifact is not what the sources build.
wasm-check: wasm
	git diff --exit-code -- plugin/toolerr.wasm plugin/toolerr.wasm.sha256 plugin/toolerr.wasm.build \
		bindings/python/src/toolerr/toolerr.wasm bindings/python/src/toolerr/toolerr.wasm.sha256 \
		bindings/node/wasm/toolerr.wasm bindings/node/wasm/toolerr.wasm.sha256

vet:
	$(GO) vet ./...
	CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm $(GO) vet ./plugin/wasm

fmt-check:
	@out="$$(gofmt -l .)"; test -z "$$out" || { echo "gofmt needed:"; echo "$$out"; exit 1; }

tidy-check:
	$(GO) mod tidy
	git diff --exit-code -- go.mod go.sum

test-go:
	$(GO) test -count=1 ./...

test: vet fmt-check test-go

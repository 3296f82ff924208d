// The module file of the TinyGo build (plugin/tinygo/build.sh passes it as
// -modfile): TinyGo 0.39 compiles against Go 1.25, which go.mod's go line
// (1.26) and golang.org/x/text v0.44.0 (which wants Go 1.26) rule out. It
// lists only what plugin/wasm imports, at go.mod's versions except x/text;
// build.sh fails when a version here drifts from go.mod's.
module github.com/toolerr/toolerr

go 1.25

require (
	github.com/extism/go-pdk v1.1.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	golang.org/x/text v0.32.0
)

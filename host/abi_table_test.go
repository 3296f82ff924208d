package host_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin"
)

// exportRow matches a row of ABI.md's export tables: | `name` | 1.0 | ...
var exportRow = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]+\\.[0-9]+) \\|")

// runtimeRow matches a row of ABI.md's runtime exports table: the
// allocator that TinyGo's runtime exports, which is not part of the ABI.
var runtimeRow = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| runtime \\|")

func TestABI_ExportTableMatchesModule(t *testing.T) {
	doc, err := os.ReadFile("../abi/ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, m := range exportRow.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = m[2]
	}
	raw := []string{"toolerr_buffer", "toolerr_call"}
	for _, e := range abi.Exports {
		if v, ok := documented[e.Name]; !ok || v != e.AddedIn {
			t.Errorf("abi.Exports has %s (added in %s); ABI.md says %q", e.Name, e.AddedIn, v)
		}
	}
	if len(documented) != len(abi.Exports)+len(raw) {
		t.Errorf("ABI.md documents %d exports, want %d", len(documented), len(abi.Exports)+len(raw))
	}

	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, plugin.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	runtimeExports := map[string]bool{}
	for _, m := range runtimeRow.FindAllStringSubmatch(string(doc), -1) {
		runtimeExports[m[1]] = true
	}
	var actual []string
	for name := range compiled.ExportedFunctions() {
		if name == "_initialize" || runtimeExports[name] {
			continue
		}
		actual = append(actual, name)
	}
	want := append(abi.ExportNames(), raw...)
	slices.Sort(actual)
	slices.Sort(want)
	if !slices.Equal(actual, want) {
		t.Errorf("module exports %v\nwant %v", actual, want)
	}
	for _, name := range raw {
		if _, ok := documented[name]; !ok {
			t.Errorf("ABI.md does not document %s", name)
		}
	}
}

package host_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// policyTable returns the first table of ABI.md's "## Host policy"
// section: each row's cells, the header and separator left out. The Node,
// Python and Rust bindings' policy tests read the same table.
func policyTable(t *testing.T) (rows [][]string, section string) {
	t.Helper()
	section = abiSection(t, "Host policy")
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the first table ends
			}
			continue
		}
		inTable = true
		// No cell of this table holds a '|'.
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 4 {
			t.Fatalf("ABI.md host policy row %q has %d cells, want 4", line, len(cells))
		}
		if cells[0] == "rule" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatal("ABI.md's host policy table has no rows")
	}
	return rows, section
}

// policyDefaults reads the named rows of the policy table: `name` to its
// default, a whole number.
func policyDefaults(t *testing.T) (map[string]int64, map[string]string) {
	t.Helper()
	rows, _ := policyTable(t)
	values, text := map[string]int64{}, map[string]string{}
	name := regexp.MustCompile("^`([a-zA-Z]+)`$")
	for _, r := range rows {
		if r[1] == "" {
			if r[2] != "" {
				t.Errorf("host policy row %q has a default but no name", r[0])
			}
			continue
		}
		m := name.FindStringSubmatch(r[1])
		if m == nil {
			t.Errorf("host policy row %q: name %q is not one `identifier`", r[0], r[1])
			continue
		}
		v, err := strconv.ParseInt(r[2], 10, 64)
		if err != nil {
			t.Errorf("host policy row %q: default %q is not a whole number", r[0], r[2])
			continue
		}
		values[m[1]], text[m[1]] = v, r[3]
	}
	return values, text
}

// TestPolicy_DefaultsMatchABITable checks the Go host's defaults against
// ABI.md's host policy table, figure by figure, the prose of each row
// included.
func TestPolicy_DefaultsMatchABITable(t *testing.T) {
	values, text := policyDefaults(t)
	const mib = 1 << 20
	want := map[string]int64{
		"memoryMaxPages":    host.DefaultMemoryLimitPages,
		"callTimeoutMs":     host.DefaultCallTimeout.Milliseconds(),
		"maxRequestBytes":   abi.MaxRequestBytes,
		"retireMemoryPages": host.RetireMemoryPages,
	}
	for name, v := range want {
		got, ok := values[name]
		if !ok {
			t.Errorf("ABI.md's host policy has no `%s` row", name)
		} else if got != v {
			t.Errorf("ABI.md's host policy says %s = %d; the Go host's default is %d", name, got, v)
		}
	}
	for name := range values {
		if _, ok := want[name]; !ok {
			t.Errorf("ABI.md's host policy has a row `%s` this test does not check", name)
		}
	}
	// What each row says in words must give the same figures.
	prose := map[string][]string{
		"memoryMaxPages": {fmt.Sprintf("%d pages of 64 KiB (%d MiB)", host.DefaultMemoryLimitPages, host.DefaultMemoryLimitPages*pageBytes/mib)},
		"callTimeoutMs":  {fmt.Sprintf("after %d s", int(host.DefaultCallTimeout.Seconds()))},
		"retireMemoryPages": {
			fmt.Sprintf("over %d pages (%d MiB)", host.RetireMemoryPages, host.RetireMemoryPages*pageBytes/mib),
			fmt.Sprintf("is over %d KiB", host.MemoryCheckBytes>>10),
		},
	}
	for name, phrases := range prose {
		for _, p := range phrases {
			if !strings.Contains(text[name], p) {
				t.Errorf("ABI.md's host policy row `%s` says %q, which does not contain %q", name, text[name], p)
			}
		}
	}
	// The Go-specific figures of the section below the table.
	_, section := policyTable(t)
	for _, p := range []string{
		fmt.Sprintf("over %d KiB", host.InlineRequestBytes>>10),
	} {
		if !strings.Contains(section, p) {
			t.Errorf("ABI.md's host policy section does not say %q", p)
		}
	}
}

// TestPolicy_DefaultsApply checks that a Host made with the zero Options
// applies the policy: a request over maxRequestBytes is refused before the
// module, and an instance is retired by what its memory grew to, not by
// the size of the request: one that served a 4 MB request that grew it
// little stays, one that a request grew past retireMemoryPages goes.
func TestPolicy_DefaultsApply(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, []host.Engine{host.Wazero, host.Extism}, host.Options{MaxInstances: 1}, func(t *testing.T, e host.Engine, h *host.Host) {
		over := []byte(`{"text":"` + strings.Repeat("a", abi.MaxRequestBytes-10) + `"}`)
		_, err := h.Call(ctx, "parse", over)
		var abiErr *abi.Error
		want := fmt.Sprintf("parse: request is %d bytes, over the limit of %d", len(over), abi.MaxRequestBytes)
		if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeRequestTooLarge || abiErr.Message != want {
			t.Errorf("a request of %d bytes: %v, want REQUEST_TOO_LARGE %q", len(over), err, want)
		}
		if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
			t.Fatal(err)
		}
		if n := host.LiveInstances(h); n != 1 {
			t.Fatalf("%d live instances after a small call, want 1 (kept)", n)
		}
		large := []byte(`{"text":"` + strings.Repeat("&amp;", 800_000) + `"}`)
		if _, err := h.Call(ctx, "parse", large); err != nil {
			t.Fatal(err)
		}
		if p := h.MemoryPages(ctx); len(p) != 1 || p[0] > host.RetireMemoryPages {
			t.Fatalf("after a parse of %d bytes: memory %v pages, want one instance of at most %d (kept)", len(large), p, host.RetireMemoryPages)
		}
		grows := []byte(`{"field":"` + strings.Repeat("f", 4_000_000) + `"}`)
		if _, err := h.Call(ctx, "required_field", grows); err != nil {
			t.Fatal(err)
		}
		if n := host.LiveInstances(h); n != 0 {
			t.Errorf("%d live instances after a request that grew memory past %d pages, want 0 (retired)", n, host.RetireMemoryPages)
		}
		if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
			t.Fatalf("the call after a retirement: %v", err)
		}
	})
}

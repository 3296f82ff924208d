package host_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
)

// abiSection returns the text of ABI.md's section "## "+title, up to the
// next "## " heading.
func abiSection(t *testing.T, title string) string {
	t.Helper()
	doc, err := os.ReadFile("../abi/ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## "+title+"\n")
	if !ok {
		t.Fatalf(`ABI.md has no "## %s" section`, title)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// limitsTable returns the rows of ABI.md's "## Limits" table: the first
// cell (backquotes removed) mapped to the second.
func limitsTable(t *testing.T) map[string]string {
	t.Helper()
	section := abiSection(t, "Limits")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 || cells[0] == "limit" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows[strings.Trim(cells[0], "`")] = cells[1]
	}
	if len(rows) == 0 {
		t.Fatal("ABI.md's limits table has no rows")
	}
	return rows
}

// numbers returns every number written in s, thousands separators
// allowed ("200,000"), in order.
func numbers(t *testing.T, s string) []int64 {
	t.Helper()
	var out []int64
	for _, m := range regexp.MustCompile(`[0-9][0-9,]*`).FindAllString(s, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(m, ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

const pageBytes = 64 << 10

// TestABI_LimitsTableMatchesConstants checks every figure of ABI.md's
// limits table against the constants that enforce it, and the limits the
// module's describe export reports against both.
func TestABI_LimitsTableMatchesConstants(t *testing.T) {
	rows := limitsTable(t)
	want := map[string][]int64{
		// value, then the same in MiB
		"maxRequestBytes": {abi.MaxRequestBytes, abi.MaxRequestBytes >> 20},
		"maxDepth":        {abi.MaxDepth},
		"maxValues":       {abi.MaxValues},
		// memory and time per call: the host policy table (policy_test.go)
	}
	for name, figures := range want {
		cell, ok := rows[name]
		if !ok {
			t.Errorf("ABI.md's limits table has no %q row", name)
			continue
		}
		if got := numbers(t, cell); !slices.Equal(got, figures) {
			t.Errorf("ABI.md limits %q says %q: figures %v, want %v", name, cell, got, figures)
		}
	}
	for name := range rows {
		if _, ok := want[name]; !ok {
			t.Errorf("ABI.md's limits table has a row %q this test does not check", name)
		}
	}

	// describe reports the module's limits; every engine must agree with
	// the constants (and so with the table).
	for engine, h := range engines(t) {
		out, err := h.Call(context.Background(), "describe", []byte(`{}`))
		if err != nil {
			t.Fatalf("%s: describe: %v", engine, err)
		}
		var d struct {
			Limits map[string]int64 `json:"limits"`
		}
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatalf("%s: describe: %v", engine, err)
		}
		described := map[string]int64{"maxRequestBytes": abi.MaxRequestBytes, "maxDepth": abi.MaxDepth, "maxValues": abi.MaxValues}
		if len(d.Limits) != len(described) {
			t.Errorf("%s: describe limits %v, want %v", engine, d.Limits, described)
		}
		for name, v := range described {
			if d.Limits[name] != v {
				t.Errorf("%s: describe limits.%s = %d, want %d", engine, name, d.Limits[name], v)
			}
			if got := numbers(t, rows[name]); len(got) == 0 || got[0] != d.Limits[name] {
				t.Errorf("%s: describe limits.%s = %d, ABI.md says %q", engine, name, d.Limits[name], rows[name])
			}
		}
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

func TestReplaceSection(t *testing.T) {
	const md = "# B\n\n## a\n\nA\n\n## m\n\nM\n\n## m2\n\nM2\n\n## z\n\nZ\n"
	for _, c := range []struct {
		heading, section, want string
	}{
		{"\n## a\n", "\n## a\n\nA'\n", "# B\n\n## a\n\nA'\n\n## m\n\nM\n\n## m2\n\nM2\n\n## z\n\nZ\n"},
		// A section of two headings replaces both, and what follows stays.
		{"\n## m\n", "\n## m\n\nM'\n\n## m2\n\nM2'\n", "# B\n\n## a\n\nA\n\n## m\n\nM'\n\n## m2\n\nM2'\n\n## z\n\nZ\n"},
		{"\n## z\n", "\n## z\n\nZ'\n", "# B\n\n## a\n\nA\n\n## m\n\nM\n\n## m2\n\nM2\n\n## z\n\nZ'\n"},
		{"\n## new\n", "\n## new\n\nN\n", md + "\n## new\n\nN\n"},
	} {
		if got := replaceSection(md, c.heading, c.section); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.heading, got, c.want)
		}
	}
}

// TestReplaceSection_Benchmarks: each section of BENCHMARKS.md that is
// measured alone, put in place of itself, leaves the file as it is.
func TestReplaceSection_Benchmarks(t *testing.T) {
	raw, err := os.ReadFile("../../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	ends := map[string]string{moduleHeading: "\n## First result of a fresh process", proxyHeading: "", healHeading: ""}
	for heading, inside := range ends {
		start := strings.Index(md, heading)
		if start < 0 {
			t.Fatalf("BENCHMARKS.md has no %q", heading)
		}
		from := start + len(heading)
		if inside != "" {
			from = strings.Index(md, inside) + len(inside)
		}
		end := len(md)
		if i := strings.Index(md[from:], "\n## "); i >= 0 {
			end = from + i
		}
		if got := replaceSection(md, heading, md[start:end]); got != md {
			t.Errorf("%q put in place of itself changes BENCHMARKS.md", heading)
		}
	}
}

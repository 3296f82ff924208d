package validation

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// naiveAlternatives is pythonAlternatives as it was, searching each
// separator from every token to the end of the text: the oracle for the
// version that remembers where each separator lies.
func naiveAlternatives(text string) []*jsonv.Value {
	var out []*jsonv.Value
	rest := text
	for rest != "" {
		var token string
		if q := rest[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				token, rest = rest, ""
			} else {
				out = append(out, &jsonv.Value{Kind: jsonv.KindString, Str: rest[1 : 1+end]})
				rest = trimSeparator(rest[end+2:])
				continue
			}
		} else {
			cut := len(rest)
			for _, sep := range []string{", ", " or "} {
				if i := strings.Index(rest, sep); i >= 0 && i < cut {
					cut = i
				}
			}
			token, rest = rest[:cut], trimSeparator(rest[cut:])
		}
		if v := pythonToken(token); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// TestPythonAlternatives_AgreesWithTheScan compares the two on random
// texts of tokens, quotes and both separators.
func TestPythonAlternatives_AgreesWithTheScan(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	parts := []string{"a", "bc", "'x'", `"y, z"`, ", ", " or ", "or", ",", " ", "'", "1", "True", "None"}
	text := func(vs []*jsonv.Value) string {
		var b []string
		for _, v := range vs {
			b = append(b, string(jsonv.AppendValue(nil, v)))
		}
		return strings.Join(b, " | ")
	}
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for n := r.Intn(12); n > 0; n-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		got := text(pythonAlternatives(&jsonv.Value{Kind: jsonv.KindString, Str: b.String()}))
		if want := text(naiveAlternatives(b.String())); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", b.String(), got, want)
		}
	}
}

// TestUnionTrie_AgreesWithPrefixes compares the trie with the prefix test
// it replaces.
func TestUnionTrie_AgreesWithPrefixes(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	seg := []string{"#", "anyOf", "0", "1", "oneOf", "", "properties", "a/b"}
	loc := func() string {
		var p []string
		for n := 1 + r.Intn(5); n > 0; n-- {
			p = append(p, seg[r.Intn(len(seg))])
		}
		return strings.Join(p, "/")
	}
	for round := 0; round < 300; round++ {
		trie := &unionTrie{}
		var unions []string
		for n := r.Intn(5); n > 0; n-- {
			u := loc()
			trie.add(u)
			unions = append(unions, u+"/")
		}
		for k := 0; k < 20; k++ {
			p := loc()
			want := false
			for _, u := range unions {
				want = want || strings.HasPrefix(p, u)
			}
			if got := trie.inBranch(p); got != want {
				t.Fatalf("unions %q, location %q: %v, want %v", unions, p, got, want)
			}
		}
	}
}

// TestSentValue_ShowsThePrefix checks the bounded "You sent:" against the
// whole value cut as before.
func TestSentValue_ShowsThePrefix(t *testing.T) {
	var members []string
	for i := 0; i < 200; i++ {
		members = append(members, `"k`+strconv.Itoa(i)+`":"😀é"`)
	}
	for _, text := range []string{
		`{` + strings.Join(members, ",") + `}`,
		`{"a":"` + strings.Repeat("😀", 60) + `"}`,
		`{"` + strings.Repeat("日", 80) + `":1}`,
		`"` + strings.Repeat("😀", 24) + `x"`, `"` + strings.Repeat("😀", 26) + `"`, `"` + strings.Repeat("a", 51) + `"`,
		`{"a":1}`,
	} {
		v := mustParse(t, text)
		var want string
		if v.Kind == jsonv.KindObject {
			want = cutUTF16(string(jsonv.AppendValue(nil, v)), maxSentUnits)
		} else {
			units := 0
			for _, r := range v.Str {
				units += utf16.RuneLen(r)
			}
			want = "'" + v.Str + "'"
			if units > maxSentUnits {
				want = "'" + cutUTF16(v.Str, maxSentUnits-3) + "...'"
			}
		}
		if got := string(appendSentValue(nil, v)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", text[:min(len(text), 40)], got, want)
		}
	}
}

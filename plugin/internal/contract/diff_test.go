package contract

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

func lockOf(t *testing.T, tools string) *Lockfile {
	t.Helper()
	v, err := jsonv.ParseJSON([]byte(tools), 256)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ReadContract("tools", v)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestDiff_Scenario pins the rules of this round: a change deeper than the
// compared depth, an unresolved $ref, objects as enum values, and a diff
// over its budget, whose refusal is the same every time (it is not cached).
func TestDiff_Scenario(t *testing.T) {
	nest := func(n int, leaf string) string {
		for i := 0; i < n; i++ {
			leaf = `{"properties":{"a":` + leaf + `}}`
		}
		return leaf
	}
	shared := func(n int) (string, string) {
		var xs, ps, qs []string
		for i := 0; i < n; i++ {
			xs = append(xs, `"x`+strconv.Itoa(i)+`":{}`)
			ps = append(ps, `"p`+strconv.Itoa(i)+`":{"$ref":"#/$defs/X"}`)
			qs = append(qs, `"p`+strconv.Itoa(i)+`":{"title":"`+strconv.Itoa(i)+`"}`)
		}
		return `{"$defs":{"X":{"properties":{` + strings.Join(xs, ",") + `}}},"properties":{` + strings.Join(ps, ",") + `}}`,
			`{"properties":{` + strings.Join(qs, ",") + `}}`
	}
	bigBefore, bigAfter := shared(300)
	for _, tc := range []struct{ name, before, after, want string }{
		{"deeper than compared", nest(66, `{"type":"string"}`), nest(66, `{"type":"number"}`), "is nested more than 64 levels deep and was not compared"},
		{"equal deeper than compared", `{"properties":{"d":` + nest(66, `{"type":"string"}`) + `,"x":{"type":"string"}}}`,
			`{"properties":{"d":` + nest(66, `{"type":"string"}`) + `,"x":{"type":"number"}}}`, `Type of "x" changed`},
		{"remote $ref changed", `{"$ref":"a.json"}`, `{"$ref":"b.json"}`, "Reference of input changed"},
		{"enum of objects in any key order", `{"enum":[{"a":1,"b":2}]}`, `{"enum":[{"b":2,"a":1}]}`, ""},
		{"over the budget", bigBefore, bigAfter, "takes more than"},
		{"recursive $ref with a sibling terminates", `{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N","description":"n"}}}},"$ref":"#/$defs/N","title":"x"}`,
			`{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N","description":"n"},"v":{"type":"string"}}}},"$ref":"#/$defs/N","title":"x"}`, `Optional property "v" was added to "next"`},
		{"an $anchor named twice is compared as written", `{"$defs":{"A":{"$anchor":"x","type":"number"},"B":{"$anchor":"x"}},"properties":{"p":{"$ref":"#x"}}}`,
			`{"$defs":{"A":{"$anchor":"x","type":"integer"},"B":{"$anchor":"x"}},"properties":{"p":{"$ref":"#x"}}}`, ""},
		{"an $anchor inside an enum value names nothing", `{"enum":[{"$anchor":"x"}],"properties":{"p":{"$ref":"#x"}}}`,
			`{"enum":[{"$anchor":"x"}],"properties":{"p":{"$ref":"#x"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := 0; round < 2; round++ {
				before := lockOf(t, `[{"name":"t","inputSchema":`+tc.before+`,"description":"`+tc.name+`"}]`)
				after := lockOf(t, `[{"name":"t","inputSchema":`+tc.after+`,"description":"`+tc.name+`"}]`)
				deltas, err := CachedDiff(before, after)
				var be *BudgetError
				got := ""
				switch {
				case errors.As(err, &be):
					got = err.Error()
				case err != nil:
					t.Fatal(err)
				case len(deltas) > 0:
					got = deltas[0].Description
				}
				if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
					t.Errorf("round %d: got %q, want %q", round, got, tc.want)
				}
			}
		})
	}
}

package validation

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// TestFastPath_AgreesWithTheValidator: whatever the fast path accepts, the
// validator accepts too, and it accepts most valid arguments of the
// schemas it plans for (so the test is not empty).
func TestFastPath_AgreesWithTheValidator(t *testing.T) {
	schemas := []string{
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`,
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer","minimum":1,"maximum":10}},"required":["a","b"],"additionalProperties":false}`,
		`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3},"e":{"type":"string","enum":["x","yé"]},"f":{"type":"boolean"},"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5}}}`,
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"the invoice ID","pattern":"^inv_[0-9]{3}$"},"q":{"type":"string","pattern":"b","maxLength":3}},"additionalProperties":false}`,
	}
	values := []string{`""`, `"x"`, `"yé"`, `"abc"`, `"abcd"`, `"é€"`, `0`, `1`, `1.5`, `-1`, `10`, `11`, `2.5`, `1e+21`, `true`, `false`, `null`, `[]`, `{}`, `[1]`, `0.1`,
		`"inv_001"`, `"inv_0012"`, `"INV-1"`, `"ab"`, `"xbx"`, `"bbbb"`, `"inv_999"`}
	keys := [][]string{{"message", "other"}, {"a", "b", "a", "b", "other"}, {"s", "e", "f", "n", "other"}, {"id", "id", "id", "q", "other"}}
	rng := rand.New(rand.NewSource(1))
	for si, text := range schemas {
		schema, err := jsonv.ParseJSON([]byte(text), abi.MaxDepth)
		if err != nil {
			t.Fatal(err)
		}
		entry, err := compileSchema(Schema{Value: schema})
		if err != nil || entry.plan == nil {
			t.Fatalf("schema %d: no plan (%v)", si, err)
		}
		accepted := 0
		for range 10000 {
			var parts []string
			for _, k := range keys[si] {
				if rng.Intn(4) > 0 || k == "other" && rng.Intn(2) == 0 {
					parts = append(parts, strconv.Quote(k)+":"+values[rng.Intn(len(values))])
				}
			}
			argsText := "{" + strings.Join(parts, ",") + "}"
			args, err := jsonv.ParseJSON([]byte(argsText), abi.MaxDepth)
			if err != nil {
				t.Fatal(err)
			}
			if !entry.plan.accepts(args) {
				continue
			}
			accepted++
			if verr := entry.sch.Validate(toAny(args)); verr != nil {
				t.Errorf("schema %d: the fast path accepts %s, the validator does not: %v", si, argsText, verr)
			}
		}
		if accepted < 20 {
			t.Errorf("schema %d: the fast path accepted only %d", si, accepted)
		}
	}
}

func TestFastPath_NoPlan(t *testing.T) {
	for _, text := range []string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
		`{"type":"object","properties":{"a":{"type":"number","pattern":"^a"}}}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
		`{"properties":{"a":{"type":"string"}}}`,
		`{"type":"object","$defs":{}}`,
		`{"type":"object","properties":{"a":{"type":"number","enum":[1]}}}`,
	} {
		schema, err := jsonv.ParseJSON([]byte(text), abi.MaxDepth)
		if err != nil {
			t.Fatal(err)
		}
		if p := planFor(schema); p != nil {
			t.Errorf("%s: a plan", text)
		}
	}
}

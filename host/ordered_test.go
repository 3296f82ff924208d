package host_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/host"
)

// orderedSchemas exercise the JSON Schema keywords whose subschemas the
// validator keeps in maps (dependentSchemas, patternProperties,
// dependencies, dependentRequired, unevaluatedProperties, additional
// properties of several schemas): each makes several issues at one path,
// or several paths at one level, that a map's order could reorder.
var orderedSchemas = []struct{ name, schema, args string }{
	{"dependentSchemas", `{"dependentSchemas":{"y":{"properties":{"a":{"const":"y"}}},"x":{"properties":{"a":{"const":"x"}}},` +
		`"z":{"properties":{"a":{"enum":["p","q"]}}},"w":{"properties":{"a":{"enum":["m"]},"b":{"type":"string"}}},"v":{"required":["c","d"]}}}`,
		`{"z":1,"a":1,"y":1,"x":1,"w":1,"v":1,"b":2}`},
	{"patternProperties", `{"patternProperties":{"^a":{"enum":[3,4]},"^ab":{"enum":[1,2]},"b$":{"enum":[1,2,5]},"^.b":{"enum":[0]},` +
		`"^z":{"type":"integer"},"z$":{"minimum":10}},"additionalProperties":false}`,
		`{"ab":"z","zz":1.5,"zaz":"s","other":1,"more":2}`},
	{"dependencies draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"b":["q","p"],"a":["r"],"c":{"required":["s","t"]},"d":{"properties":{"a":{"type":"string"}}}}}`,
		`{"d":1,"c":1,"b":1,"a":1}`},
	{"dependentRequired", `{"dependentRequired":{"m":["n","o"],"k":["l"],"j":["n"]}}`, `{"j":1,"k":1,"m":1}`},
	{"unevaluatedProperties", `{"allOf":[{"properties":{"a":{}}}],"patternProperties":{"^b":{"type":"string"},"^c":{"type":"number"}},"unevaluatedProperties":{"type":"boolean"}}`,
		`{"z":1,"y":"s","b1":1,"c1":"x","a":0,"x":null}`},
	{"several closed schemas", `{"allOf":[{"properties":{"a":{}},"additionalProperties":false},{"properties":{"b":{}},"additionalProperties":false},` +
		`{"patternProperties":{"^c":{}},"additionalProperties":false}]}`,
		`{"c1":1,"b":2,"a":3,"d":4,"e":5}`},
}

// TestValidate_SameBytesEveryTime calls validate 30 times per engine on
// each ordered schema, half of the calls with a schema new to the module's
// cache (a $comment differs, so it is compiled again), and requires the
// same bytes from every call on every engine.
func TestValidate_SameBytesEveryTime(t *testing.T) {
	ctx := context.Background()
	hs := engines(t)
	for _, tc := range orderedSchemas {
		t.Run(tc.name, func(t *testing.T) {
			var first []byte
			for _, e := range []host.Engine{host.Native, host.Wazero} {
				for i := 0; i < 30; i++ {
					schema := tc.schema
					if i%2 == 1 {
						schema = `{"$comment":"` + string(e) + strconv.Itoa(i) + `",` + strings.TrimPrefix(schema, "{")
					}
					out, err := hs[e].Call(ctx, "validate", []byte(`{"action":"a","schema":`+schema+`,"args":`+tc.args+`}`))
					if err != nil {
						t.Fatalf("%s call %d: %v", e, i, err)
					}
					if first == nil {
						first = out
						if !bytes.Contains(out, []byte(`"valid":false`)) || bytes.Count(out, []byte("<field ")) < 2 {
							t.Fatalf("want several issues, got %s", out)
						}
						continue
					}
					if !bytes.Equal(out, first) {
						t.Fatalf("%s call %d differs:\n got %s\nwant %s", e, i, out, first)
					}
				}
			}
		})
	}
}

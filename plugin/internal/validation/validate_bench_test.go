package validation_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// twentyFieldSchema is a tool inputSchema with 20 typed, bounded fields.
func twentyFieldSchema(comment string) string {
	var props []string
	for i := 0; i < 20; i++ {
		switch i % 4 {
		case 0:
			props = append(props, fmt.Sprintf(`"s%d":{"type":"string","minLength":1,"maxLength":40,"pattern":"^[a-z0-9_]+$"}`, i))
		case 1:
			props = append(props, fmt.Sprintf(`"n%d":{"type":"number","minimum":0,"maximum":1000}`, i))
		case 2:
			props = append(props, fmt.Sprintf(`"e%d":{"type":"string","enum":["a","b","c"]}`, i))
		default:
			props = append(props, fmt.Sprintf(`"l%d":{"type":"array","items":{"type":"integer"},"maxItems":5}`, i))
		}
	}
	return `{"$comment":"` + comment + `","type":"object","properties":{` + strings.Join(props, ",") +
		`},"required":["s0","n1"],"additionalProperties":false}`
}

const twentyFieldArgs = `{"s0":"Bad Value","n1":-1,"e2":"z","l3":[1,2.5],"extra":true}`

func validateRequest(schema string) []byte {
	return []byte(`{"action":"bench","schema":` + schema + `,"args":` + twentyFieldArgs + `}`)
}

// BenchmarkValidate_FirstCall compiles the schema on every call: each
// iteration's schema differs by its $comment, so the cache never hits.
func BenchmarkValidate_FirstCall(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		if _, err := dispatch.Call("validate", validateRequest(twentyFieldSchema(fmt.Sprint("first-", i)))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_CachedCall validates against one schema again and
// again: the compiled schema comes from the cache.
func BenchmarkValidate_CachedCall(b *testing.B) {
	req := validateRequest(twentyFieldSchema("cached"))
	if _, err := dispatch.Call("validate", req); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := dispatch.Call("validate", req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestValidate_CacheKeepsResultsIdentical(t *testing.T) {
	req := validateRequest(twentyFieldSchema("identical"))
	first, err := dispatch.Call("validate", req)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		again, err := dispatch.Call("validate", req)
		if err != nil || string(again) != string(first) {
			t.Fatalf("call %d differs:\n%s\n%s", i, again, first)
		}
	}
}

// BenchmarkValidate_ValidCall is a healed server's everyday call: valid
// arguments for a one-parameter tool whose id has a pattern (the Go
// quickstart's get_invoice, as jsonschema-go writes its schema).
func BenchmarkValidate_ValidCall(b *testing.B) {
	req := []byte(`{"action":"billing.get_invoice","schema":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"the invoice ID, such as inv_001","pattern":"^inv_[0-9]{3}$"}},"additionalProperties":false},"args":{"id":"inv_001"}}`)
	for b.Loop() {
		if out, err := dispatch.Call("validate", req); err != nil || string(out) != `{"valid":true}` {
			b.Fatal(string(out), err)
		}
	}
}

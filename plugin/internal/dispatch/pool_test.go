package dispatch

import (
	"strings"
	"testing"
)

// A call reuses pooled decoding memory, so strings of one request are
// overwritten by the next. What outlives a call (the diff and schema
// caches) must not see that: a cached answer given after other calls is
// the same as the first.
func TestCachesOutliveReusedCalls(t *testing.T) {
	cases := []struct{ export, request string }{
		{"contract_diff", `{"before":[{"name":"pool_a","inputSchema":{"type":"object","properties":{"x":{"type":"string","enum":["left","right"]}}}},{"name":"pool_b","description":"Bee."}],` +
			`"after":[{"name":"pool_a","inputSchema":{"type":"object","properties":{"x":{"type":"string","enum":["left"]}}}}]}`},
		{"validate", `{"action":"pool.check","schema":{"type":"object","properties":{"mode":{"type":"string","enum":["alpha","beta"]},"code":{"type":"string","pattern":"^[a-z]{3}$"}},"required":["mode","code"]},"args":{"mode":"gamma","code":"ABCD"}}`},
	}
	first := make([]string, len(cases))
	for i, c := range cases {
		out, err := Call(c.export, []byte(c.request))
		if err != nil {
			t.Fatalf("%s: %v", c.export, err)
		}
		first[i] = string(out)
	}
	// Requests of the same sizes with other bytes, through every export
	// that decodes strings, overwrite whatever pooled memory there is.
	for round := 0; round < 50; round++ {
		for _, c := range cases {
			other := strings.NewReplacer("pool", "zzzz", "left", "XXXX", "right", "YYYYY", "alpha", "ZZZZZ", "beta", "WWWW", "Bee", "Qqq", "x", "q").Replace(c.request)
			if _, err := Call(c.export, []byte(other)); err != nil {
				t.Fatalf("%s (other): %v", c.export, err)
			}
		}
		if _, err := Call("tool_error", []byte(`{"code":"`+strings.Repeat("Q", 300)+`","message":"`+strings.Repeat("m", 900)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cases {
		out, err := Call(c.export, []byte(c.request))
		if err != nil {
			t.Fatalf("%s again: %v", c.export, err)
		}
		if string(out) != first[i] {
			t.Errorf("%s: the cached answer changed after other calls\nfirst: %s\nlater: %s", c.export, first[i], out)
		}
	}
}

// AppendCall writes after dst and leaves dst's bytes alone; an error
// returns nil and the next call still answers.
func TestAppendCall(t *testing.T) {
	req := []byte(`{"field":"id"}`)
	want, err := Call("required_field", req)
	if err != nil {
		t.Fatal(err)
	}
	dst := append(make([]byte, 0, 4), "head"...)
	out, err := AppendCall(dst, "required_field", req)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "head"+string(want) {
		t.Errorf("AppendCall = %s, want head%s", out, want)
	}
	if out, err := AppendCall(dst, "required_field", []byte(`{"field":1}`)); err == nil || out != nil {
		t.Errorf("bad request: out %q, err %v", out, err)
	}
	if out, err := AppendCall(nil, "required_field", req); err != nil || string(out) != string(want) {
		t.Errorf("after an error: %q, %v", out, err)
	}
}

// validate keeps compiled schemas by their text as the request wrote it:
// the same schema spaced another way answers alike, and of a schema given
// twice the last counts, as it does for the check itself.
func TestValidate_SchemaAsWritten(t *testing.T) {
	cases := []struct{ request, want string }{
		{`{"action":"k.a","schema":{"type":"object","properties":{"n":{"type":"integer"}}},"args":{"n":1}}`, `{"valid":true}`},
		{`{"action":"k.a","schema": { "type" : "object" , "properties":{"n":{"type":"integer"}} },"args":{"n":1}}`, `{"valid":true}`},
		{`{"action":"k.a","schema":{"type":"string"},"schema":{"type":"object"},"args":{}}`, `{"valid":true}`},
		{`{"action":"k.a","schema":{"type":"object"},"schema":{"type":"string"},"args":{}}`, `{"valid":false`},
		{`{"action":"k.a","schema":{"type":"string"},"args":{}}`, `{"valid":false`},
		{`{"action":"k.a","schema":{"type":"object"},"args":{}}`, `{"valid":true}`},
		{`{"action":"k.a","schema":{"type":"object","properties":{"n":{"type":"integer"}}},"args":{"n":"x"}}`, `{"valid":false`},
		{`{"action":"k.a","schema": { "type" : "object" , "properties":{"n":{"type":"integer"}} },"args":{"n":"x"}}`, `{"valid":false`},
	}
	for round := 0; round < 2; round++ { // the second round from the cache
		for _, c := range cases {
			out, err := Call("validate", []byte(c.request))
			if err != nil {
				t.Fatalf("%s: %v", c.request, err)
			}
			if !strings.HasPrefix(string(out), c.want) {
				t.Errorf("round %d, %s:\n%s\nwant %s...", round, c.request, out, c.want)
			}
		}
	}
}

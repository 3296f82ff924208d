package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// gateCase is one case of examples/gate-cases.json.
type gateCase struct {
	Name string          `json:"name"`
	Line json.RawMessage `json:"line"`
	Want json.RawMessage `json:"want"`
	Why  string          `json:"why"`
}

// buildLine makes a case's line: a string, or parts (strings, repeat runs,
// bytes).
func buildLine(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []byte(text)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatalf("a line is a string or parts: %s", raw)
	}
	var out []byte
	for _, p := range parts {
		var part struct {
			Repeat *string `json:"repeat"`
			Times  int     `json:"times"`
			Raw    []int   `json:"bytes"`
		}
		if json.Unmarshal(p, &text) == nil {
			out = append(out, text...)
		} else if err := json.Unmarshal(p, &part); err == nil && part.Repeat != nil {
			out = append(out, strings.Repeat(*part.Repeat, part.Times)...)
		} else if err == nil && part.Raw != nil {
			for _, b := range part.Raw {
				out = append(out, byte(b))
			}
		} else {
			t.Fatalf("unknown part %s", p)
		}
	}
	return out
}

// TestGate_Cases runs the gate's rules, examples/gate-cases.json, which the
// Node, Python and Rust servers' tests run through their gates too.
func TestGate_Cases(t *testing.T) {
	raw, err := os.ReadFile("../gate-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []gateCase }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, tc := range file.Cases {
		var want []byte
		if tc.Want != nil {
			want = buildLine(t, tc.Want)
		}
		out, why := admit(buildLine(t, tc.Line))
		if why != tc.Why || !bytes.Equal(out, want) {
			t.Errorf("%s: admit gave %.200q (%q), want %.200q (%q)", tc.Name, out, why, want, tc.Why)
		}
	}
}

// TestGate_Marker checks what the handler reads of the gate's markers.
func TestGate_Marker(t *testing.T) {
	for _, tc := range []struct {
		raw, kind, inner string
		ok               bool
	}{
		{raw: `{"toolerr.gate":"too_deep"}`, kind: "too_deep", ok: true},
		{raw: `{"toolerr.gate":"not_object","arguments":[1]}`, kind: "not_object", inner: `[1]`, ok: true},
		{raw: `{"toolerr.gate":"too_deep","x":1}`},
		{raw: `{"toolerr.gate":"other"}`},
		{raw: `{"toolerr.gate":"not_object"}`},
		{raw: `{"id":"toolerr.gate"}`},
	} {
		kind, inner, ok := gateMarkerOf([]byte(tc.raw))
		if kind != tc.kind || string(inner) != tc.inner || ok != tc.ok {
			t.Errorf("%s: %q %q %v, want %q %q %v", tc.raw, kind, inner, ok, tc.kind, tc.inner, tc.ok)
		}
	}
}

package gate

import (
	"strings"
	"testing"
)

// call is a tools/call line for tool "t" with the arguments' JSON text.
func call(args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + args + `}}`
}

// meta is a tools/call line for tool "t" with empty arguments and the JSON
// text value in params._meta.
func meta(value string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"s":` + value + `}}}`
}

// Cases the vectors cannot carry: bytes that are not UTF-8, and lines
// too large for a vector file.
func TestCheck_Lines(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		verdict Verdict
		rewrite string // the line handed on, for Rewrite
		problem Problem
		sent    int // Depth, Values or Bytes measured, when checked
		// arguments is what the decision quotes of them, when checked.
		arguments string
	}{
		{name: "a byte that is not UTF-8 becomes U+FFFD", line: meta(`"a` + "\xff" + `b"`), verdict: Rewrite, rewrite: meta(`"a` + "\uFFFD" + `b"`)},
		{name: "an encoded surrogate is three bytes that are not UTF-8", line: meta(`"` + "\xed\xa0\x80" + `"`), verdict: Rewrite, rewrite: meta(`"` + strings.Repeat("\uFFFD", 3) + `"`)},
		{name: "a truncated sequence", line: meta(`"` + "\xe2\x82" + `x"`), verdict: Rewrite, rewrite: meta(`"` + strings.Repeat("\uFFFD", 2) + `x"`)},
		{name: "raw bytes and an escape in one string", line: meta(`"\ud800` + "\xc0" + `"`), verdict: Rewrite, rewrite: meta(`"\ufffd` + "\uFFFD" + `"`)},
		{name: "a byte that is not UTF-8 in the arguments", line: call(`{"s":"a` + "\xff" + `b"}`), verdict: Answer, problem: NotUnicode, arguments: "\xff"},
		{name: "an encoded surrogate in the arguments is its first byte", line: call(`{"s":"` + "\xed\xa0\x80" + `"}`), verdict: Answer, problem: NotUnicode, arguments: "\xed"},
		{name: "the first of raw bytes and an escape in the arguments", line: call(`{"s":"\ud800` + "\xc0" + `"}`), verdict: Answer, problem: NotUnicode, arguments: `\ud800`},
		{name: "a byte that is not UTF-8 in the name is rewritten", line: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t` + "\xff" + `","arguments":{}}}`, verdict: Rewrite,
			rewrite: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t` + "\uFFFD" + `","arguments":{}}}`},
		{name: "valid UTF-8 passes", line: call(`{"s":"héllo ✓ 😀"}`), verdict: Pass},
		{name: "a byte that is not UTF-8 outside a string", line: call(`{"s":1}` + "\xff"), verdict: Ignore},
		{name: "a byte that is not UTF-8 in the id of a bad request", line: `{"jsonrpc":"1.0","id":"` + "\xff" + `","method":"m"}`, verdict: Answer},
		{name: "200,000 values pass", line: call(`[` + strings.TrimSuffix(strings.Repeat("0,", 199_999), ",") + `]`), verdict: Answer, problem: NotAnObject},
		{name: "200,001 values", line: call(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", 199_999), ",") + `]}`), verdict: Answer, problem: TooLarge, sent: 200_001},
		{name: "100,000 levels", line: call(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)), verdict: Answer, problem: TooDeep, sent: 100_000},
		{name: "4 MiB of arguments pass", line: call(`{"s":"` + strings.Repeat("a", MaxArgumentBytes-8) + `"}`), verdict: Pass},
		{name: "too large before too deep", line: call(`{"s":"` + strings.Repeat("a", MaxArgumentBytes) + `","d":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`), verdict: Answer, problem: TooLarge,
			sent: MaxArgumentBytes + 8 + 205},
		{name: "over 4 MiB of arguments", line: call(`{"s":"` + strings.Repeat("a", MaxArgumentBytes-7) + `"}`), verdict: Answer, problem: TooLarge, sent: MaxArgumentBytes + 1},
		{name: "a surrogate in a 1 MiB line", line: meta(`"\udc00` + strings.Repeat("a", 1<<20) + `"`), verdict: Rewrite, rewrite: meta(`"\ufffd` + strings.Repeat("a", 1<<20) + `"`)},
		{name: "a surrogate at the end of 1 MiB of arguments", line: call(`{"s":"` + strings.Repeat("a", 1<<20) + `\udc00"}`), verdict: Answer, problem: NotUnicode, arguments: `\udc00`},
		{name: "a million levels of a line that is not JSON", line: strings.Repeat("[", 1_000_000), verdict: Ignore},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := checkVerdict(t, tc.line, tc.verdict)
			if tc.verdict == Rewrite && string(d.Line) != tc.rewrite {
				t.Errorf("rewrote to %.200q, want %.200q", d.Line, tc.rewrite)
			}
			if d.Problem != tc.problem {
				t.Errorf("problem %d, want %d", d.Problem, tc.problem)
			}
			if tc.arguments != "" && string(d.Arguments) != tc.arguments {
				t.Errorf("quoted %q of the arguments, want %q", d.Arguments, tc.arguments)
			}
			if tc.sent != 0 {
				if got := max(d.Depth*boolInt(tc.problem == TooDeep), d.Values*boolInt(tc.problem == TooLarge && d.Values > MaxArgumentValues), d.Bytes*boolInt(tc.problem == TooLarge && d.Values <= MaxArgumentValues)); got != tc.sent {
					t.Errorf("measured %d, want %d", got, tc.sent)
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A head may end anywhere; what it shows decides, and a head that is
// malformed before its end is not JSON.
func TestCheck_Heads(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"t","arguments":{"s":"é\ud83d\ude00","n":-1.5e3,"b":true}}}`
	for cut := 1; cut < len(line); cut++ {
		d, err := Check([]byte("9000000\n" + line[:cut]))
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		nameSeen := strings.Contains(line[:cut], `"name":"t"`)
		switch {
		case nameSeen && (d.Verdict != Answer || d.Problem != TooLarge || d.Tool != "t"):
			t.Errorf("cut at %d (%q): %s %q, want a validation error", cut, line[:cut], d.Verdict, d.Reason)
		case !nameSeen && strings.Contains(line[:cut], `"method":"tools/call"`) && (d.Verdict != Answer || d.ErrorCode != CodeInvalidRequest):
			t.Errorf("cut at %d (%q): %s %q, want an Invalid Request answer", cut, line[:cut], d.Verdict, d.Reason)
		case !strings.Contains(line[:cut], `"method":"tools/call"`) && d.Verdict != Ignore:
			t.Errorf("cut at %d (%q): %s, want ignored", cut, line[:cut], d.Verdict)
		}
	}
	// Cut inside a multi-byte character.
	d, _ := Check([]byte("9000000\n" + call(`{"s":"`)[:70] + "\xe2\x82"))
	if d.Verdict == Ignore && d.Reason == "not JSON" {
		t.Errorf("a head cut inside a character is read as not JSON")
	}
	// A head that is a whole line is a host's mistake, read as not JSON.
	if d, _ := Check([]byte("9000000\n" + call(`{}`))); d.Verdict != Ignore {
		t.Errorf("a whole line given as a head: %s", d.Verdict)
	}
}

func TestSafeInteger_Texts(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"0", true}, {"7", true}, {"-7", true}, {"9007199254740991", true}, {"-9007199254740991", true},
		{"9007199254740992", false}, {"99999999999999999", false}, {"-0", false}, {"01", false},
		{"1.0", false}, {"1e2", false}, {"1E2", false}, {"-", false}, {"", false},
	} {
		if got := safeInteger([]byte(tc.text)); got != tc.want {
			t.Errorf("safeInteger(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// The members the gate reads are read where MCP has them, and only there:
// the same names inside the arguments, or deeper in _meta, are the tool's.
func TestCheck_MembersWhereMCPHasThem(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		verdict    Verdict
	}{
		{"_meta in the arguments", call(`{"_meta":"x","cursor":5}`), Pass},
		{"a progress token in the arguments", call(`{"_meta":{"progressToken":{}}}`), Pass},
		{"a progress token deeper in _meta", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":{"progressToken":null}}}}`, Pass},
		{"a cursor in _meta", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"cursor":5}}}`, Pass},
		{"an unknown member of params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"other":null}}`, Pass},
		{"a cursor of a notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"cursor":5}}`, Ignore},
		{"an unknown member of the message after params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"x":1}`, Answer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkVerdict(t, tc.line, tc.verdict)
		})
	}
}

// checkVerdict runs the gate on line and fails t unless its verdict is
// want.
func checkVerdict(t *testing.T, line string, want Verdict) Decision {
	t.Helper()
	d, err := Check([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if d.Verdict != want {
		t.Fatalf("verdict %s (%q), want %s", d.Verdict, d.Reason, want)
	}
	return d
}

// A call of the stateless protocol names its version in params._meta; the
// gate's validation error to it then says resultType (the vectors hold the
// bytes). Only that member of _meta counts, as a string, read as the SDKs
// read it.
func TestCheck_Stateless(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	line := func(meta string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":` + meta + `,"arguments":` + deep + `}}`
	}
	tests := []struct {
		name, line string
		stateless  bool
	}{
		{"the version as a string", line(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), true},
		{"a version the gate does not know", line(`{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}`), true},
		{"the key spelled with escapes", line(`{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}`), true},
		{"given twice, the last a string", line(`{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), true},
		{"given twice, the last not a string", line(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":null}`), false},
		{"no version", line(`{"progressToken":1}`), false},
		{"a version that is not a string", line(`{"io.modelcontextprotocol/protocolVersion":20260728}`), false},
		{"the key deeper in _meta", line(`{"x":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), false},
		{"the key in params, not _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","arguments":` + deep + `}}`, false},
		{"the key in the arguments", call(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"d":` + deep + `}`), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Check([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict != Answer || d.Problem != TooDeep {
				t.Fatalf("%s, problem %d: want a too-deep answer", d.Verdict, d.Problem)
			}
			if d.Stateless != tc.stateless {
				t.Errorf("Stateless = %v, want %v", d.Stateless, tc.stateless)
			}
		})
	}
	// A line over the limit: what its head shows.
	head := line(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)[:150]
	if d, _ := Check([]byte("9000000\n" + head)); d.Verdict != Answer || d.Problem != TooLarge || !d.Stateless {
		t.Errorf("a head that shows the version: %s, problem %d, Stateless %v", d.Verdict, d.Problem, d.Stateless)
	}
}

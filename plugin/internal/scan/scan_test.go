package scan

import (
	"strings"
	"testing"
	"unsafe"
)

// The word tests must agree with a byte-by-byte reading for every byte
// value at every position of the word.
func TestWordTests(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			var w [8]byte
			for i := range w {
				w[i] = 'a'
			}
			w[pos] = byte(v)
			x := load8(unsafe.Pointer(&w[0]), 0)
			c := byte(v)
			if got, want := hasControlOrHigh(x), c < 0x20 || c >= 0x80; got != want {
				t.Errorf("hasControlOrHigh with %#x at %d = %v, want %v", v, pos, got, want)
			}
			for _, b := range []byte{'"', '\\', '&', '<', '>', '\''} {
				if got, want := hasByte(x, b), c == b; got != want {
					t.Errorf("hasByte(%q) with %#x at %d = %v, want %v", b, v, pos, got, want)
				}
			}
		}
	}
}

// The skips stop at or before the first byte that needs attention and
// never skip past the end.
func TestSkips(t *testing.T) {
	jsonSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	xmlSpecial := func(c byte) bool { return strings.IndexByte(`&<>"'`, c) >= 0 || c < 0x20 || c >= 0x80 }
	firstSpecial := func(s string, from int, special func(byte) bool) int {
		for i := from; i < len(s); i++ {
			if special(s[i]) {
				return i
			}
		}
		return len(s)
	}
	plain := "abcdefghijklmnopqrstuvwxyz0123456789"
	for n := 0; n <= len(plain); n++ {
		for at := 0; at <= n; at++ {
			for _, c := range []byte{'"', '\\', '\n', 0x00, 0x1f, 0x80, 0xff, '&', '<', '>', '\'', 'z'} {
				s := plain[:at] + string([]byte{c}) + plain[at:n]
				for from := 0; from <= len(s); from++ {
					checkSkip(t, "skipJSONPlain", s, from, SkipJSONPlain(s, from), firstSpecial(s, from, jsonSpecial))
					checkSkip(t, "skipJSONPlainBytes", s, from, SkipJSONPlainBytes([]byte(s), from), firstSpecial(s, from, jsonSpecial))
					checkSkip(t, "skipXMLPlain", s, from, SkipXMLPlain(s, from), firstSpecial(s, from, xmlSpecial))
				}
			}
		}
	}
	if got := SkipJSONPlainBytes(nil, 0); got != 0 {
		t.Errorf("skipJSONPlainBytes(nil, 0) = %d", got)
	}
}

func checkSkip(t *testing.T, name, s string, from, got, first int) {
	t.Helper()
	// A skip moves in whole words: it may stop early, by less than a word
	// before the end or before the special byte, never after it.
	if got < from || got > first || (first-got >= 8 && got+8 <= len(s)) {
		t.Fatalf("%s(%q, %d) = %d, first special at %d", name, s, from, got, first)
	}
}

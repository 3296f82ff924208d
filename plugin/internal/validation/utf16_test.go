package validation

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
)

// The byte loops of utf16LongerThan and cutUTF16 against the plain range
// loops they replace, on strings of ASCII, two-, three- and four-byte
// characters and bytes that are not UTF-8, around the limits.
func TestUTF16Measures_MatchRangeLoops(t *testing.T) {
	longer := func(s string, units int) bool {
		n := 0
		for _, r := range s {
			if n += utf16.RuneLen(r); n > units {
				return true
			}
		}
		return false
	}
	cut := func(s string, units int) string {
		n := 0
		for i, r := range s {
			w := 1
			if r >= 0x10000 {
				w = 2
			}
			if n+w > units {
				return s[:i]
			}
			n += w
		}
		return s
	}
	pieces := []string{"a", "é", "€", "😀", "\xff", "\xe2\x82", "\xf0\x9f", "z"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var s string
		for range rng.IntN(12) {
			s += pieces[rng.IntN(len(pieces))]
		}
		for units := range 14 {
			if got, want := utf16LongerThan(s, units), longer(s, units); got != want {
				t.Fatalf("utf16LongerThan(%q, %d) = %v, want %v", s, units, got, want)
			}
			if got, want := cutUTF16(s, units), cut(s, units); got != want {
				t.Fatalf("cutUTF16(%q, %d) = %q, want %q", s, units, got, want)
			}
		}
	}
}

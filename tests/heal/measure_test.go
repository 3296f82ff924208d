package main

import "testing"

// TestMeasure_WordAndNumber: a name or a number counts as stated only on
// its own, not as a part of a longer one.
func TestMeasure_WordAndNumber(t *testing.T) {
	for _, c := range []struct {
		text, s string
		number  bool
		want    bool
	}{
		{"the id field", "id", false, true},
		{"id", "id", false, true},
		{"the ids", "id", false, false},
		{"user_id and x-id", "id", false, false},
		{"user_id, then id", "id", false, true},
		{"", "id", false, false},
		{"Must be >= 6.", "6", true, true},
		{"6", "6", true, true},
		{"60", "6", true, false},
		{"6.5", "6", true, false},
		{"1.6", "6", true, false},
		{"16, then 6.", "6", true, true},
	} {
		got := word(c.text, c.s)
		if c.number {
			got = numberIn(c.text, c.s)
		}
		if got != c.want {
			t.Errorf("%q in %q (number %v): %v, want %v", c.s, c.text, c.number, got, c.want)
		}
	}
}

package main

import "testing"

// TestMeasure_WordAndNumber: a name or a number counts as stated only on
// its own, not as a part of a longer one.
func TestMeasure_WordAndNumber(t *testing.T) {
	for _, c := range []struct {
		stated        func(text, s string) bool
		s             string
		alone, inside []string // texts where s stands alone, and where it does not
	}{
		{word, "id", []string{"the id field", "id", "user_id, then id"}, []string{"the ids", "user_id and x-id", ""}},
		{numberIn, "6", []string{"Must be >= 6.", "6", "16, then 6."}, []string{"60", "6.5", "1.6"}},
	} {
		for _, text := range c.alone {
			if !c.stated(text, c.s) {
				t.Errorf("%q is not found alone in %q", c.s, text)
			}
		}
		for _, text := range c.inside {
			if c.stated(text, c.s) {
				t.Errorf("%q is found alone in %q", c.s, text)
			}
		}
	}
}

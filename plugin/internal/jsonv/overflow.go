package jsonv

import (
	"math"
	"strconv"
	"strings"
)

// Overflowing returns the JSON Pointer ("#/a/0") of the first number in v
// that overflowed float64 when it was decoded (±Inf: JSON.parse reads
// 1e309 as Infinity), and whether there is one. Such a number cannot be
// written back as JSON (it would become null), so a schema or a contract
// that holds one is refused rather than kept with another meaning. The
// pointer is built only for the number found: the search is linear in v.
func Overflowing(v *Value) (string, bool) {
	var rev []string // the pointer's tokens, innermost first
	var find func(v *Value) bool
	find = func(v *Value) bool {
		switch v.Kind {
		case KindNumber:
			return math.IsInf(v.Num, 0)
		case KindArray:
			for i, item := range v.Arr {
				if find(item) {
					rev = append(rev, strconv.Itoa(i))
					return true
				}
			}
		case KindObject:
			for _, m := range v.Members {
				if find(m.Value) {
					rev = append(rev, EscapeToken(m.Key))
					return true
				}
			}
		}
		return false
	}
	if !find(v) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('#')
	for i := len(rev) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(rev[i])
	}
	return b.String(), true
}

// EscapeToken escapes a JSON Pointer reference token (~ as ~0, / as ~1).
func EscapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

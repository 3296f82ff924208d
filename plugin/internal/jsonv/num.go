package jsonv

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber writes f as ECMAScript's Number.prototype.toString does:
// 30, 1.5, 1e+21, 1e-7, 0.000001, -0 as 0, NaN, Infinity.
//
// Every host renders numbers through this one function, so Python's 30.0
// and JavaScript's 30 give the same bytes.
func FormatNumber(f float64) string {
	return string(AppendNumber(nil, f))
}

// AppendNumber is FormatNumber writing after b.
func AppendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		return append(b, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 { // exact integers are already shortest
		// An int64 holds it exactly; AppendInt writes the same digits as
		// AppendFloat(f, 'f', 0), which on TinyGo went through strconv's
		// big decimal (an 800-byte allocation and a shift per number).
		return strconv.AppendInt(b, int64(f), 10)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// Shortest round-tripping digits, as in "d.ddde±x".
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // position of the decimal point relative to the digits
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for i := k; i < n; i++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for i := n; i < 0; i++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

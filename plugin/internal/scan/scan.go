// Package scan finds, eight bytes at a time, the first byte of a text that
// JSON or XML must escape: one 64-bit load and a few arithmetic tests per
// word instead of a compare and a branch per byte, which inside the wasm
// module is what text-heavy calls spend most of their time on.
package scan

import "unsafe"

// The text loops skip eight plain bytes at a time: one 64-bit load and a
// few arithmetic tests instead of eight byte compares. Inside the module
// every branch of a Go loop costs far more than natively, so this is where
// escaping and decoding spend less.

const (
	lsb = 0x0101010101010101 // 0x01 in every byte
	msb = 0x8080808080808080 // 0x80 in every byte
)

// load8 reads the eight bytes of p from i on; the caller ensures they are
// there. Only whether some byte matches is ever asked, so byte order does
// not matter.
func load8(p unsafe.Pointer, i int) uint64 {
	return *(*uint64)(unsafe.Add(p, i))
}

// hasZero reports whether some byte of x is zero.
func hasZero(x uint64) bool { return (x-lsb)&^x&msb != 0 }

// hasByte reports whether some byte of x is c.
func hasByte(x uint64, c byte) bool { return hasZero(x ^ lsb*uint64(c)) }

// hasControlOrHigh reports whether some byte of x is below 0x20 or at or
// above 0x80.
func hasControlOrHigh(x uint64) bool { return ((x-lsb*0x20)&^x|x)&msb != 0 }

// SkipJSONPlain returns the first index from i on of an 8-byte block of s
// that holds a '"', a '\\', a control character or a non-ASCII byte; the
// bytes before it need no attention in a JSON string.
func SkipJSONPlain(s string, i int) int {
	p := unsafe.Pointer(unsafe.StringData(s))
	for ; i+8 <= len(s); i += 8 {
		x := load8(p, i)
		if hasControlOrHigh(x) || hasByte(x, '"') || hasByte(x, '\\') {
			break
		}
	}
	return i
}

// SkipJSONPlainBytes is skipJSONPlain over a byte slice, read in place.
func SkipJSONPlainBytes(b []byte, i int) int {
	return SkipJSONPlain(unsafe.String(unsafe.SliceData(b), len(b)), i)
}

// SkipXMLPlain returns the first index from i on of an 8-byte block of s
// that holds a character some XML escaping mode may replace: & < > " ',
// a control character or a non-ASCII byte.
func SkipXMLPlain(s string, i int) int {
	p := unsafe.Pointer(unsafe.StringData(s))
	for ; i+8 <= len(s); i += 8 {
		x := load8(p, i)
		if hasControlOrHigh(x) || hasByte(x, '&') || hasByte(x, '<') || hasByte(x, '>') || hasByte(x, '"') || hasByte(x, '\'') {
			break
		}
	}
	return i
}

// Package vectors loads toolerr's conformance vectors (tests/vectors/v1)
// and compares responses with them byte for byte, for any engine that runs
// the module: the native core, wazero, Extism.
//
// A vector file holds the cases of one export; each case is an exact ABI
// request and exactly one of the response it must give or the typed error
// it must fail with. tests/README.md describes the layout.
//
// # Notes
//   - An input that is a JSON string is a raw request: the string's text is
//     sent as it is (malformed JSON, a bare string, a float written 30.0).
//     Use Case.Request to get the bytes to send.
//   - Expected outputs are compared after Canonical, which writes JSON the
//     way the module does (JSON.stringify style), so a file may be indented
//     freely.
package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/toolerr/toolerr/abi"
)

// File is one vector file: the cases of one export.
type File struct {
	Export string `json:"export"`
	Cases  []Case `json:"cases"`
}

// Case is one request and what it must give: Output (a JSON object) or
// Error (an ABI error), never both.
type Case struct {
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       *abi.Error      `json:"error,omitempty"`
}

// Request returns the bytes to send for the case: the text of a JSON string
// input, or else the input compacted with its escapes kept as written (so a
// lone surrogate escape reaches the engine as "\ud800").
func (c Case) Request() ([]byte, error) {
	in := bytes.TrimSpace(c.Input)
	if len(in) > 0 && in[0] == '"' {
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, fmt.Errorf("vectors: raw input of %q: %w", c.Description, err)
		}
		return []byte(s), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, in); err != nil {
		return nil, fmt.Errorf("vectors: input of %q: %w", c.Description, err)
	}
	return b.Bytes(), nil
}

// Load reads every *.json file of dir (tests/vectors/v1), in name order.
func Load(dir string) ([]File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("vectors: no *.json file in %s", dir)
	}
	sort.Strings(paths)
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var f File
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("vectors: %s: %w", p, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("vectors: %s: data after the top-level object", p)
		}
		files = append(files, f)
	}
	return files, nil
}

// Canonical re-encodes a JSON value compactly as the module writes JSON:
// object members in their order, strings as JSON.stringify writes them
// (only '"', '\\' and control characters escaped; '<', '>', '&' and U+2028
// as they are), numbers as JavaScript's Number.prototype.toString.
func Canonical(raw json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out, err := canonicalValue(dec, nil)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("vectors: data after the JSON value")
	}
	return out, nil
}

func canonicalValue(dec *json.Decoder, out []byte) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out = append(out, '{')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out = append(out, ',')
				}
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				out = appendString(out, key.(string))
				out = append(out, ':')
				if out, err = canonicalValue(dec, out); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil { // }
				return nil, err
			}
			return append(out, '}'), nil
		case '[':
			out = append(out, '[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out = append(out, ',')
				}
				if out, err = canonicalValue(dec, out); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil { // ]
				return nil, err
			}
			return append(out, ']'), nil
		}
		return nil, fmt.Errorf("vectors: unexpected %v", t)
	case string:
		return appendString(out, t), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return appendNumber(out, f), nil
	case bool:
		return strconv.AppendBool(out, t), nil
	case nil:
		return append(out, "null"...), nil
	}
	return nil, fmt.Errorf("vectors: unexpected token %v", tok)
}

// appendNumber writes f as JSON.stringify does: ECMAScript's
// Number.prototype.toString for finite numbers (shortest round-tripping
// digits; plain decimals from 1e-6 up to 1e21, exponent notation outside,
// written e+21 and e-7; -0 as 0) and null for the rest. It is written from
// the ECMAScript rules with strconv alone, independently of the module's
// own number writer, which the vectors check.
func appendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "null"...)
	case f == 0:
		return append(b, '0')
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	// strconv writes at least two exponent digits (1e-07); ECMAScript
	// writes as many as the exponent has (1e-7).
	e := strconv.AppendFloat(nil, f, 'e', -1, 64)
	i := bytes.IndexByte(e, 'e')
	b = append(b, e[:i+2]...) // mantissa, 'e' and the sign
	exp := bytes.TrimLeft(e[i+2:], "0")
	return append(b, exp...)
}

// appendString writes s as JSON.stringify does; invalid UTF-8 becomes
// U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s { // ranging a string yields U+FFFD for invalid bytes
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

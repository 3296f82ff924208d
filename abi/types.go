package abi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Text returns the text of the first text block, or "".
func (r *CallToolResult) Text() string {
	for _, c := range r.Content {
		if c.Type == "text" {
			return c.Text
		}
	}
	return ""
}

// Detail is one entry of a tool error's details. Value is a string, a
// boolean or a number (any Go integer or float type).
type Detail struct {
	Key   string
	Value any
}

// Details is an ordered set of details: the order given is the order
// rendered and the order parsed back, which a map could not keep.
type Details []Detail

// MarshalJSON writes the details as one JSON object, in order.
func (d Details) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, entry := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(entry.Key)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		switch entry.Value.(type) {
		case string, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		default:
			return nil, fmt.Errorf("details %q: value must be a string, number or boolean, got %T", entry.Key, entry.Value)
		}
		value, err := json.Marshal(entry.Value)
		if err != nil {
			return nil, fmt.Errorf("details %q: %w", entry.Key, err)
		}
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object keeping its member order; numbers
// decode as float64.
func (d *Details) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*d = nil
		return nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return fmt.Errorf("details must be a JSON object")
	}
	out := Details{}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := keyTok.(string)
		var value any
		if err := dec.Decode(&value); err != nil {
			return err
		}
		replaced := false
		for i := range out {
			if out[i].Key == key {
				out[i].Value, replaced = value, true
			}
		}
		if !replaced {
			out = append(out, Detail{key, value})
		}
	}
	*d = out
	return nil
}

// Get returns the value of key and whether it is there.
func (d Details) Get(key string) (any, bool) {
	for _, entry := range d {
		if entry.Key == key {
			return entry.Value, true
		}
	}
	return nil, false
}

// Contract asks a validation error to tell the model what changed: give
// Deltas, or Lockfile and Tools for the module to diff.

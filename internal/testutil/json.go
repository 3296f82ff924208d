package testutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// DecodeStrict decodes data, one JSON value, into v: a field v does not
// have is an error, and so is anything after the value.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the top-level value")
	}
	return nil
}

// ReadJSONFile reads the JSON file at path into v with DecodeStrict; an
// error names the file.
func ReadJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := DecodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

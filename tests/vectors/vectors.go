// Package vectors loads toolerr's conformance vectors (tests/vectors/v1)
// for any engine that runs the module: the native core, wazero, Extism.
//
// A vector file holds the cases of one export; each case is an exact ABI
// request and exactly one of the response it must give or the typed error
// it must fail with. tests/README.md describes the layout.
//
// # Notes
//   - An input that is a JSON string is a raw request: the string's text is
//     sent as it is (malformed JSON, a bare string, a float written 30.0).
//     Use Case.Request to get the bytes to send.
//   - An output is a JSON string whose text is the exact response: compare
//     the engine's bytes with Case.Want, nothing is re-encoded.
//   - An error is compared by its code and message.
package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/toolerr/toolerr/abi"

	"github.com/toolerr/toolerr/internal/testutil"
)

// File is one vector file: the cases of one export.
type File struct {
	Export string `json:"export"`
	Cases  []Case `json:"cases"`
}

// Case is one request and what it must give: Output (the exact response
// text) or Error (an ABI error), never both.
type Case struct {
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
	Output      *string         `json:"output,omitempty"`
	Error       *abi.Error      `json:"error,omitempty"`
}

// Want returns the exact response bytes the case expects, or nil for a case
// that expects an error.
func (c Case) Want() []byte {
	if c.Output == nil {
		return nil
	}
	return []byte(*c.Output)
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

// MustLoad is Load for a test: an error ends it.
func MustLoad(t testing.TB, dir string) []File {
	t.Helper()
	files, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
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
		var f File
		if err := testutil.ReadJSONFile(p, &f); err != nil {
			return nil, fmt.Errorf("vectors: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

// Package hostile loads the hostile-request corpus, tests/hostile/corpus.json:
// the malformed, oversized, deeply nested and otherwise adversarial requests
// that every host of the module (the Go engines and the Node, Python and
// Rust bindings) sends through its raw call, each with the outcome it must
// give. tests/README.md describes the layout.
//
// # Notes
//   - A request or response is a JSON string (its text, sent as UTF-8), an
//     object {"base64": ...} (bytes that are not UTF-8), or an object
//     {"parts": [...], "size": n} whose parts are strings and {"repeat": unit,
//     "times": n, "separator": s} runs, "{i}" in a unit standing for the
//     run's index from 0; size, when given, is the length in bytes.
//   - A case expects exactly one of error (an ABI code, and the message
//     exactly, a part of it or its start), response (the exact response
//     bytes) or responds (any response: a JSON object). tolerate lists other
//     ABI codes a host may give instead; TRAP there means a wasm instance may
//     run out of memory (the host replaces it), never the native engine.
package hostile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"

	"github.com/toolerr/toolerr/internal/testutil"
)

// Corpus is tests/hostile/corpus.json.
type Corpus struct {
	Description string  `json:"description"`
	MaxSeconds  float64 `json:"maxSeconds"` // the bound of every call unless a case sets its own
	Next        Next    `json:"next"`
	Cases       []Case  `json:"cases"`
}

// Next is the valid call made after every hostile one, and its exact answer.
type Next struct {
	Export   string `json:"export"`
	Request  Bytes  `json:"request"`
	Response Bytes  `json:"response"`
}

// Case is one hostile request and what it must give.
type Case struct {
	Description string   `json:"description"`
	Export      string   `json:"export"`
	Request     Bytes    `json:"request"`
	Error       *Error   `json:"error,omitempty"`
	Response    *Bytes   `json:"response,omitempty"`
	Responds    bool     `json:"responds,omitempty"`
	Tolerate    []string `json:"tolerate,omitempty"`
	MaxSeconds  float64  `json:"maxSeconds,omitempty"`
}

// Error is an expected ABI error: the code, and at most one of the exact
// message, a part of it, or its start.
type Error struct {
	Code            string `json:"code"`
	Message         string `json:"message,omitempty"`
	MessageContains string `json:"messageContains,omitempty"`
	MessagePrefix   string `json:"messagePrefix,omitempty"`
}

// Bytes is a request or response as the corpus writes it.
type Bytes struct{ raw json.RawMessage }

func (b *Bytes) UnmarshalJSON(data []byte) error {
	b.raw = append(json.RawMessage(nil), data...)
	return nil
}

func (b Bytes) MarshalJSON() ([]byte, error) { return b.raw, nil }

// Build returns the bytes.
func (b Bytes) Build() ([]byte, error) {
	in := bytes.TrimSpace(b.raw)
	if len(in) > 0 && in[0] == '"' {
		var s string
		err := json.Unmarshal(in, &s)
		return []byte(s), err
	}
	var spec struct {
		Base64 *string           `json:"base64"`
		Parts  []json.RawMessage `json:"parts"`
		Size   *int              `json:"size"`
	}
	if err := testutil.DecodeStrict(in, &spec); err != nil {
		return nil, err
	}
	if spec.Base64 != nil {
		if spec.Parts != nil || spec.Size != nil {
			return nil, fmt.Errorf("base64 goes alone")
		}
		return base64.StdEncoding.DecodeString(*spec.Base64)
	}
	if spec.Parts == nil {
		return nil, fmt.Errorf("want a string, base64 or parts")
	}
	var out bytes.Buffer
	for _, p := range spec.Parts {
		if t := bytes.TrimSpace(p); len(t) > 0 && t[0] == '"' {
			var s string
			if err := json.Unmarshal(t, &s); err != nil {
				return nil, err
			}
			out.WriteString(s)
			continue
		}
		var run struct {
			Repeat    string `json:"repeat"`
			Times     int    `json:"times"`
			Separator string `json:"separator"`
		}
		if err := testutil.DecodeStrict(p, &run); err != nil {
			return nil, err
		}
		if run.Times < 0 || run.Repeat == "" {
			return nil, fmt.Errorf("a run needs a unit and times >= 0")
		}
		indexed := strings.Contains(run.Repeat, "{i}")
		for i := 0; i < run.Times; i++ {
			if i > 0 {
				out.WriteString(run.Separator)
			}
			if indexed {
				out.WriteString(strings.ReplaceAll(run.Repeat, "{i}", strconv.Itoa(i)))
			} else {
				out.WriteString(run.Repeat)
			}
		}
	}
	if spec.Size != nil && out.Len() != *spec.Size {
		return nil, fmt.Errorf("built %d bytes, size says %d", out.Len(), *spec.Size)
	}
	return out.Bytes(), nil
}

// MustLoad is Load for a test: an error ends it.
func MustLoad(t testing.TB, path string) *Corpus {
	t.Helper()
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Load reads and checks a corpus file.
func Load(path string) (*Corpus, error) {
	var c Corpus
	if err := testutil.ReadJSONFile(path, &c); err != nil {
		return nil, err
	}
	if c.MaxSeconds <= 0 || c.Next.Export == "" || len(c.Cases) == 0 {
		return nil, fmt.Errorf("%s: want maxSeconds, next and cases", path)
	}
	seen := map[string]bool{}
	for _, tc := range c.Cases {
		if err := tc.lint(); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, tc.Description, err)
		}
		if seen[tc.Description] {
			return nil, fmt.Errorf("%s: two cases described %q", path, tc.Description)
		}
		seen[tc.Description] = true
	}
	return &c, nil
}

func (tc Case) lint() error {
	outcomes := 0
	for _, set := range []bool{tc.Error != nil, tc.Response != nil, tc.Responds} {
		if set {
			outcomes++
		}
	}
	switch {
	case tc.Description == "" || strings.Contains(tc.Description, "should"):
		return fmt.Errorf("a description is short, factual, and never says should")
	case !abi.HasExport(tc.Export):
		return fmt.Errorf("unknown export %q", tc.Export)
	case outcomes != 1:
		return fmt.Errorf("want exactly one of error, response and responds")
	case tc.MaxSeconds < 0:
		return fmt.Errorf("maxSeconds < 0")
	}
	if e := tc.Error; e != nil {
		messages := 0
		for _, m := range []string{e.Message, e.MessageContains, e.MessagePrefix} {
			if m != "" {
				messages++
			}
		}
		if !slices.Contains(codes, e.Code) || messages > 1 {
			return fmt.Errorf("error %+v: want an ABI code and at most one message", *e)
		}
	}
	for _, code := range tc.Tolerate {
		if !slices.Contains(codes, code) || (tc.Error != nil && code == tc.Error.Code) {
			return fmt.Errorf("tolerate %q", code)
		}
	}
	if _, err := tc.Request.Build(); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	if tc.Response != nil {
		if _, err := tc.Response.Build(); err != nil {
			return fmt.Errorf("response: %w", err)
		}
	}
	return nil
}

// codes are the ABI codes a case may name.
var codes = []string{abi.CodeInvalidRequest, abi.CodeRequestTooLarge, abi.CodeInternal, abi.CodeTimeout, abi.CodeTrap}

// LongestBound is the longest a call of the corpus may take: the per-call
// timeout a suite gives its host, so that each case's own bound judges it.
func (c *Corpus) LongestBound() time.Duration {
	longest := c.Bound(Case{})
	for _, tc := range c.Cases {
		longest = max(longest, c.Bound(tc))
	}
	return longest
}

// Bound is how long the case's call may take.
func (c *Corpus) Bound(tc Case) time.Duration {
	s := tc.MaxSeconds
	if s == 0 {
		s = c.MaxSeconds
	}
	return time.Duration(s * float64(time.Second))
}

// Check says how an outcome differs from the case's, or returns nil: out is
// the response (when code is ""), code and message the ABI error's. wasm
// says whether the engine runs the module in wasm (only then may a tolerated
// TRAP come back).
func (tc Case) Check(out []byte, code, message string, wasm bool) error {
	if code != "" && slices.Contains(tc.Tolerate, code) && (code != abi.CodeTrap || wasm) {
		return nil
	}
	if e := tc.Error; e != nil {
		switch {
		case code == "":
			return fmt.Errorf("a response (%.100q), want %s", out, e.Code)
		case code != e.Code:
			return fmt.Errorf("%s %.300s, want %s", code, message, e.Code)
		case e.Message != "" && message != e.Message:
			return fmt.Errorf("message %q, want %q", message, e.Message)
		case e.MessageContains != "" && !strings.Contains(message, e.MessageContains):
			return fmt.Errorf("message %q, want one containing %q", message, e.MessageContains)
		case e.MessagePrefix != "" && !strings.HasPrefix(message, e.MessagePrefix):
			return fmt.Errorf("message %q, want one starting %q", message, e.MessagePrefix)
		}
		return nil
	}
	if code != "" {
		return fmt.Errorf("%s %.300s, want a response", code, message)
	}
	if len(out) == 0 || out[0] != '{' || !json.Valid(out) {
		return fmt.Errorf("response is not a JSON object: %.100q", out)
	}
	if tc.Response != nil {
		want, err := tc.Response.Build()
		if err != nil {
			return err
		}
		if !bytes.Equal(out, want) {
			return fmt.Errorf("response %.300q, want %.300q", out, want)
		}
	}
	return nil
}

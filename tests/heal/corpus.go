package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolerr/toolerr/internal/testutil"
)

// Corpus is tests/heal/corpus.json: tool schemas as public MCP servers list
// them, each with one set of valid arguments.
type Corpus struct {
	Description string `json:"description"`
	Tools       []Tool `json:"tools"`
}

// Tool is one tool of the corpus.
type Tool struct {
	Server      string          `json:"server"`  // the package the schema was listed from
	Version     string          `json:"version"` // that package's version
	Name        string          `json:"tool"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Valid       json.RawMessage `json:"valid"`

	schema map[string]any // InputSchema decoded
}

// LoadCorpus reads and checks the corpus: unique tool names, every schema
// an object schema, every set of valid arguments an object.
func LoadCorpus(path string) (*Corpus, error) {
	var c Corpus
	if err := testutil.ReadJSONFile(path, &c); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range c.Tools {
		t := &c.Tools[i]
		if t.Name == "" || t.Server == "" || t.Version == "" {
			return nil, fmt.Errorf("%s: tool %d needs tool, server and version", path, i)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tool %q twice", path, t.Name)
		}
		seen[t.Name] = true
		v, err := decode(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: inputSchema: %w", path, t.Name, err)
		}
		s, ok := v.(map[string]any)
		if !ok || (s["type"] != nil && s["type"] != "object") {
			return nil, fmt.Errorf("%s: %s: inputSchema is not an object schema", path, t.Name)
		}
		t.schema = s
		args, err := decode(t.Valid)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: valid: %w", path, t.Name, err)
		}
		if _, ok := args.(map[string]any); !ok {
			return nil, fmt.Errorf("%s: %s: valid is not an object", path, t.Name)
		}
	}
	return &c, nil
}

// Servers lists the corpus's servers, each with its tool count, in order of
// first appearance.
func (c *Corpus) Servers() []string {
	var order []string
	count := map[string]int{}
	for _, t := range c.Tools {
		key := t.Server + " " + t.Version
		if count[key] == 0 {
			order = append(order, key)
		}
		count[key]++
	}
	out := make([]string, len(order))
	for i, key := range order {
		out[i] = fmt.Sprintf("%s (%d)", key, count[key])
	}
	return out
}

// decode reads JSON with numbers kept as json.Number, so that arguments are
// sent as written.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// encode is the compact JSON of v (object keys sorted, as encoding/json
// writes maps): what the bench sends, and so what a server reads back.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only values the bench built itself are encoded
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clone is a deep copy of a decoded JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// Schema helpers. A schema is a decoded JSON object; the helpers read the
// keywords the corpus uses.

func props(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// propNames lists the properties of s in sorted order (decoded objects keep
// no order; sorted is reproducible).
func propNames(s map[string]any) []string {
	p := props(s)
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func required(s map[string]any) []string {
	var out []string
	list, _ := s["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			out = append(out, name)
		}
	}
	return out
}

func isRequired(s map[string]any, name string) bool {
	return slices.Contains(required(s), name)
}

// prop is the schema of s's property name, nil when s does not describe it.
func prop(s map[string]any, name string) map[string]any {
	p, _ := props(s)[name].(map[string]any)
	return p
}

// types lists the JSON types a schema admits: its type keyword (one or a
// list), or the types of its anyOf/oneOf members; "null" included.
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if name, ok := e.(string); ok {
				out = append(out, name)
			}
		}
		return out
	}
	var out []string
	for _, m := range members(s) {
		out = append(out, types(m)...)
	}
	if len(out) == 0 && s["enum"] != nil {
		out = append(out, "string")
	}
	return out
}

// members are the anyOf or oneOf schemas of s.
func members(s map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"anyOf", "oneOf"} {
		list, _ := s[key].([]any)
		for _, m := range list {
			if ms, ok := m.(map[string]any); ok {
				out = append(out, ms)
			}
		}
	}
	return out
}

// single is the one non-null type s admits, "" when it admits several or
// none.
func single(s map[string]any) string {
	var found string
	for _, t := range types(s) {
		if t == "null" {
			continue
		}
		if found != "" && found != t {
			return ""
		}
		found = t
	}
	return found
}

func nullable(s map[string]any) bool {
	for _, t := range types(s) {
		if t == "null" {
			return true
		}
	}
	return false
}

// keyword finds a keyword in s or, failing that, in its first anyOf/oneOf
// member that has it.
func keyword(s map[string]any, name string) (any, map[string]any) {
	if v, ok := s[name]; ok {
		return v, s
	}
	for _, m := range members(s) {
		if v, ok := m[name]; ok {
			return v, m
		}
	}
	return nil, nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

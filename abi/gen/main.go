// Command gen writes every file generated from abi/abi.json, the one
// machine-readable statement of toolerr.wasm's ABI: the Go types and
// constants (abi/abi_gen.go), the dispatch table and request field lists
// of the core, the module's export glue, the tables of abi/ABI.md, and the
// request and response types and policy defaults of each binding.
//
//	go run ./abi/gen          write them
//	go run ./abi/gen -check   fail, naming each file, when one differs
//
// Run it from the repository's root (make generate does).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// source is the file every generated file is made from.
const source = "abi/abi.json"

// Spec is abi/abi.json.
type Spec struct {
	About   string `json:"about"`
	Version struct {
		Major int `json:"major"`
		Minor int `json:"minor"`
	} `json:"version"`
	ModuleVersion  string           `json:"moduleVersion"`
	Errors         []ErrorCode      `json:"errors"`
	Limits         []Limit          `json:"limits"`
	Severities     []string         `json:"severities"`
	CanonicalCodes []string         `json:"canonicalCodes"`
	Policy         []PolicyRule     `json:"policy"`
	Constants      []Constant       `json:"constants"`
	Enums          map[string]*Enum `json:"enums"`
	Types          []*Type          `json:"types"`
	Exports        []*Export        `json:"exports"`
}

// ErrorCode is one code a call fails with.
type ErrorCode struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	RaisedBy string `json:"raisedBy"`
	Doc      string `json:"doc"`
}

// Limit is one limit every request is held to.
type Limit struct {
	Name       string `json:"name"`
	Value      int    `json:"value"`
	Shown      string `json:"shown"`
	EnforcedBy string `json:"enforcedBy"`
	Doc        string `json:"doc"`
}

// PolicyRule is one row of the host policy; Name and Default are empty for
// a rule without a setting.
type PolicyRule struct {
	Rule    string `json:"rule"`
	Name    string `json:"name"`
	Default *int   `json:"default"`
	Text    string `json:"text"`
}

// Constant is a number of the ABI that is neither a limit nor a policy
// default.
type Constant struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
	Doc   string `json:"doc"`
}

// Enum is a string type with a fixed set of values.
type Enum struct {
	Doc    string   `json:"doc"`
	Values []string `json:"values"`
}

// Type is an object of a request or a response.
type Type struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
	// Strict: the module refuses a member it does not know, as it does
	// in every request object.
	Strict bool     `json:"strict"`
	Fields []*Field `json:"fields"`
}

// Field is one member of a Type.
//
// Type is string, number, integer, boolean, json (any JSON value, passed
// through), details (an object of strings, numbers and booleans whose order
// matters), the name of an enum or a type, or any of these followed by [].
// A field that is not Required may be absent (or null). Presence marks an
// optional field whose absence differs from its zero value; Nullable, a
// field whose null is a value and is always written. Rust, when set, is
// the member's Rust type (its element's, for a list) in place of the one
// the type gives (abi/gen/rust.go).
type Field struct {
	Name     string `json:"name"`
	GoName   string `json:"goName"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Presence bool   `json:"presence"`
	Nullable bool   `json:"nullable"`
	ByValue  bool   `json:"byValue"`
	OneOf    string `json:"oneOf"`
	Rule     string `json:"rule"`
	Rust     string `json:"rust"`
}

// Export is one JSON export of the module.
type Export struct {
	Name         string `json:"name"`
	AddedIn      string `json:"addedIn"`
	Request      string `json:"request"`
	RequestText  string `json:"requestText"`
	Response     string `json:"response"`
	ResponseText string `json:"responseText"`
}

// output is one generated file: its path from the repository's root and
// its bytes.
type output struct {
	path string
	data []byte
}

func main() {
	check := flag.Bool("check", false, "compare instead of writing; exit 1 when a file differs")
	flag.Parse()
	spec, err := load(source)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	var outs []output
	for _, emit := range emitters {
		o, err := emit(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(2)
		}
		outs = append(outs, o...)
	}
	stale := 0
	for _, o := range outs {
		old, _ := os.ReadFile(o.path)
		if bytes.Equal(old, o.data) {
			continue
		}
		if *check {
			fmt.Fprintf(os.Stderr, "gen: %s is not what %s makes: run go run ./abi/gen\n", o.path, source)
			stale++
			continue
		}
		if err := os.MkdirAll(filepath.Dir(o.path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(2)
		}
		if err := os.WriteFile(o.path, o.data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(2)
		}
		fmt.Println("gen: wrote", o.path)
	}
	if stale > 0 {
		os.Exit(1)
	}
}

// emitters make the generated files, each from the whole Spec.
var emitters = []func(*Spec) ([]output, error){
	emitGo,
	emitDispatch,
	emitWasm,
	emitMarkdown,
	emitRust,
	emitJava,
	emitNode,
	emitPython,
}

// load reads and checks the spec: every field's type is known, every
// export's request and response is a type.
func load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, t := range s.Types {
		for _, f := range t.Fields {
			if err := s.checkType(f.Type); err != nil {
				return nil, fmt.Errorf("%s: %s.%s: %w", path, t.Name, f.Name, err)
			}
		}
	}
	for _, e := range s.Exports {
		for _, name := range []string{e.Request, e.Response} {
			if name != "" && name != "json" && s.typ(name) == nil {
				return nil, fmt.Errorf("%s: export %s names the unknown type %q", path, e.Name, name)
			}
		}
	}
	return &s, nil
}

func (s *Spec) checkType(t string) error {
	base := strings.TrimSuffix(t, "[]")
	switch base {
	case "string", "number", "integer", "boolean", "json", "details":
		return nil
	}
	if s.Enums[base] != nil || s.typ(base) != nil {
		return nil
	}
	return fmt.Errorf("unknown type %q", t)
}

// typ returns the type named name, or nil.
func (s *Spec) typ(name string) *Type {
	for _, t := range s.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// export returns the export whose request is the type named name, or nil.
func (s *Spec) requestOf(name string) *Export {
	for _, e := range s.Exports {
		if e.Request == name {
			return e
		}
	}
	return nil
}

// sent reports whether a host sends the type named name: an export's
// request, or a type inside one.
func (s *Spec) sent(name string) bool {
	for _, e := range s.Exports {
		if s.holds(e.Request, name) {
			return true
		}
	}
	return false
}

// holds reports whether the type named root is the type named name or
// holds it, at any depth.
func (s *Spec) holds(root, name string) bool {
	seen := map[string]bool{}
	var walk func(t *Type) bool
	walk = func(t *Type) bool {
		if t == nil || seen[t.Name] {
			return false
		}
		seen[t.Name] = true
		if t.Name == name {
			return true
		}
		for _, f := range t.Fields {
			if walk(s.typ(strings.TrimSuffix(f.Type, "[]"))) {
				return true
			}
		}
		return false
	}
	return walk(s.typ(root))
}

// camel turns snake_case or lowerCamel into UpperCamel: tool_error is
// ToolError, maxDepth is MaxDepth.
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' || r == '-' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lowerCamel is camel with its first letter lower case.
func lowerCamel(s string) string {
	c := camel(s)
	if c == "" {
		return c
	}
	return strings.ToLower(c[:1]) + c[1:]
}

// snake turns lowerCamel into snake_case: windowSeconds is window_seconds.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wrap writes text as comment lines of at most width characters, each
// starting with prefix.
func wrap(b *bytes.Buffer, prefix, text string, width int) {
	line := prefix
	for _, word := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(word) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += word
	}
	if len(line) > len(prefix) {
		b.WriteString(line + "\n")
	}
}

// docComment writes text as a /** */ comment (Javadoc, JSDoc) at indent:
// on one line when it fits in 100 characters, else a block of lines.
func docComment(b *bytes.Buffer, indent, text string) {
	if one := indent + "/** " + text + " */"; len(one) <= 100 {
		b.WriteString(one + "\n")
		return
	}
	b.WriteString(indent + "/**\n")
	wrap(b, indent+" * ", text, 100)
	b.WriteString(indent + " */\n")
}

// mdLink matches a markdown link in the spec's text: its text, then its
// target.
var mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)]*)\)`)

// sentence makes a doc string a sentence that starts with subject.
func sentence(subject, doc string) string {
	return subject + " is " + strings.TrimSuffix(doc, ".") + "."
}

// upperSnake turns lowerCamel into UPPER_SNAKE_CASE: maxRequestBytes is
// MAX_REQUEST_BYTES.
func upperSnake(s string) string {
	return strings.ToUpper(snake(s))
}

// plain is a doc string without its markdown code marks.
func plain(text string) string {
	return strings.ReplaceAll(text, "`", "")
}

// group is a heading and the named values under it, as the bindings'
// generated modules list them.
type group struct {
	heading string
	values  []named
}

// named is one value of the spec, named in UPPER_SNAKE_CASE: an int or a
// string, and a sentence saying what it is.
type named struct {
	name  string
	value any
	doc   string
}

// groups returns the version, limits, constants and policy defaults of the
// spec, for the bindings' generated modules.
func (s *Spec) groups() []group {
	version := group{"The version of the ABI these names were generated for: a binding refuses a module whose major differs; abi/ABI.md's version notes say what each minor changed.", []named{
		{"ABI_MAJOR", s.Version.Major, "ABI_MAJOR is the ABI major version this binding speaks."},
		{"ABI_MINOR", s.Version.Minor, "ABI_MINOR is the ABI minor version of abi/abi.json."},
		{"MODULE_VERSION", s.ModuleVersion, "MODULE_VERSION is the release of the contract logic inside the module."},
	}}
	limits := group{heading: "Limits enforced on every request, identically by the module and the native core."}
	for _, l := range s.Limits {
		n := upperSnake(l.Name)
		limits.values = append(limits.values, named{n, l.Value, sentence(n, plain(l.Doc))})
	}
	constants := group{heading: "Numbers of the ABI that are neither limits nor policy defaults."}
	for _, c := range s.Constants {
		n := upperSnake(c.Name)
		constants.values = append(constants.values, named{n, c.Value, sentence(n, plain(c.Doc))})
	}
	policy := group{heading: "Defaults of the host policy (abi/ABI.md, \"Host policy\"), which every toolerr host applies with the same values."}
	for _, p := range s.Policy {
		if p.Name == "" {
			continue
		}
		n := "POLICY_" + upperSnake(p.Name)
		policy.values = append(policy.values, named{n, *p.Default, fmt.Sprintf("%s, %s: %s.", n, p.Rule, plain(p.Text))})
	}
	return []group{version, limits, constants, policy}
}

// fieldDoc is the doc of a field of a binding's generated type: its rule,
// after the alternatives it is one of.
func fieldDoc(t *Type, f *Field) string {
	doc := f.Rule
	if f.OneOf != "" {
		var names []string
		for _, g := range t.Fields {
			if g.OneOf == f.OneOf {
				names = append(names, g.Name)
			}
		}
		doc = strings.TrimSuffix("one of "+strings.Join(names, ", ")+"; "+doc, "; ")
	}
	return doc
}

// enumNames returns the names of the enums, sorted.
func (s *Spec) enumNames() []string {
	names := make([]string, 0, len(s.Enums))
	for name := range s.Enums {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// reserve fails, naming path, when an enum or a type of the spec has one of
// the names a generated file defines or imports itself.
func (s *Spec) reserve(path string, names ...string) error {
	for _, name := range names {
		if s.Enums[name] != nil || s.typ(name) != nil {
			return fmt.Errorf("%s: the spec's type %s has a name the file gives to something else", path, name)
		}
	}
	return nil
}

// bindingType is a field's type in a binding's language: types gives the
// language's name of each of the spec's own types it spells otherwise
// (the spec's enums and objects keep their names), list makes a list of a
// type, and null is written after the type of a nullable field.
func bindingType(f *Field, types map[string]string, list func(string) string, null string) string {
	base, isList := strings.CutSuffix(f.Type, "[]")
	t := base
	if own, ok := types[base]; ok {
		t = own
	}
	if isList {
		t = list(t)
	}
	if f.Nullable {
		t += null
	}
	return t
}

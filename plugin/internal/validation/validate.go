package validation

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// schemaURL is where a request's schema lives for the compiler; references
// may only point inside it.
const schemaURL = "toolerr:///schema.json"

// schemaCacheSize bounds the compiled schemas kept between calls.
const schemaCacheSize = 64

// schemaCache keeps compiled schemas by the sha256 of their JSON text, so
// validating against the same schema again compiles nothing.
var schemaCache = struct {
	sync.Mutex
	byDigest map[[32]byte]*jsonschema.Schema
	order    [][32]byte
}{byDigest: map[[32]byte]*jsonschema.Schema{}}

// noRemoteRefs refuses every reference outside the request's schema: the
// module has no network and no file system, by design.
type noRemoteRefs struct{}

func (noRemoteRefs) Load(url string) (any, error) {
	return nil, fmt.Errorf("references outside the schema are not allowed: %s", url)
}

// compileSchema returns the compiled form of schema, from the cache when it
// was compiled before.
func compileSchema(schema *jsonv.Value) (*jsonschema.Schema, error) {
	text := jsonv.AppendValue(nil, schema)
	digest := sha256.Sum256(text)
	schemaCache.Lock()
	sch, ok := schemaCache.byDigest[digest]
	schemaCache.Unlock()
	if ok {
		return sch, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noRemoteRefs{})
	// The cache keeps the compiled schema and the strings in it, so they
	// come from a decode of the schema's own text: an entry holds on to
	// its schema, not to the request the schema came in.
	own, err := jsonv.ParseJSON(text, abi.MaxDepth)
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(schemaURL, toAny(own)); err != nil {
		return nil, err
	}
	sch, err = c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if _, ok := schemaCache.byDigest[digest]; !ok {
		if len(schemaCache.order) >= schemaCacheSize {
			delete(schemaCache.byDigest, schemaCache.order[0])
			schemaCache.order = schemaCache.order[1:]
		}
		schemaCache.byDigest[digest] = sch
		schemaCache.order = append(schemaCache.order, digest)
	}
	return sch, nil
}

// toAny converts a Value to the shapes the validator reads: numbers as
// json.Number so integers stay exact.
func toAny(v *jsonv.Value) any {
	switch v.Kind {
	case jsonv.KindNull:
		return nil
	case jsonv.KindBool:
		return v.Bool
	case jsonv.KindNumber:
		if math.IsInf(v.Num, 1) {
			return json.Number("1e400")
		}
		if math.IsInf(v.Num, -1) {
			return json.Number("-1e400")
		}
		return json.Number(jsonv.FormatNumber(v.Num))
	case jsonv.KindString:
		return v.Str
	case jsonv.KindArray:
		out := make([]any, len(v.Arr))
		for i, item := range v.Arr {
			out[i] = toAny(item)
		}
		return out
	default:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
}

// errSchemaLoop reports a $ref chain that never reaches a keyword.
var errSchemaLoop = errors.New("the schema's $ref chain loops back on itself")

// Validate checks args against schema and returns the issues, in the
// order of args and then of the schema; none means valid.
func Validate(schema, args *jsonv.Value) ([]Issue, error) {
	sch, err := compileSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %s", oneLine(err.Error()))
	}
	verr := sch.Validate(toAny(args))
	if verr == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, verr
	}
	var found []schemaIssue
	if err := collectIssues(ve, schema, args, &found); err != nil {
		return nil, err
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].before(found[j]) })
	issues := make([]Issue, len(found))
	for i, f := range found {
		issues[i] = f.Issue
	}
	return issues, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// schemaIssue is an issue with the key it is sorted by: positions along
// its path in args (absent keys after present ones), then its keyword.
type schemaIssue struct {
	Issue
	positions []int
	names     []string
	rank      int
}

func (a schemaIssue) before(b schemaIssue) bool {
	for i := 0; i < len(a.positions) && i < len(b.positions); i++ {
		if a.positions[i] != b.positions[i] {
			return a.positions[i] < b.positions[i]
		}
		if a.names[i] != b.names[i] {
			return a.names[i] < b.names[i]
		}
	}
	if len(a.positions) != len(b.positions) {
		// A field's own issues come before its parent's (unrecognized
		// keys last, as Zod orders them).
		return len(a.positions) > len(b.positions)
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.Message < b.Message
}

// newSchemaIssue builds the sort key of an issue at path. absent orders a
// last segment that args lacks (a missing property, by its place in the
// schema).
func newSchemaIssue(is Issue, args *jsonv.Value, rank, absent int) schemaIssue {
	si := schemaIssue{Issue: is, rank: rank}
	cur := args
	for i, seg := range is.Path {
		key := jsonv.SegmentText(seg)
		pos := math.MaxInt32
		if i == len(is.Path)-1 {
			pos = 1<<30 + absent
		}
		if cur != nil {
			switch cur.Kind {
			case jsonv.KindObject:
				for i, m := range cur.Members {
					if m.Key == key {
						pos = i
						break
					}
				}
			case jsonv.KindArray:
				if n, err := strconv.Atoi(key); err == nil {
					pos = n
				}
			}
			cur = jsonv.LookupPath(cur, []*jsonv.Value{seg})
		}
		si.positions = append(si.positions, pos)
		si.names = append(si.names, key)
	}
	return si
}

func stringPath(loc []string) []*jsonv.Value {
	out := make([]*jsonv.Value, len(loc))
	for i, s := range loc {
		out[i] = &jsonv.Value{Kind: jsonv.KindString, Str: s}
	}
	return out
}

var printer = message.NewPrinter(language.English)

func ratText(r *big.Rat) string {
	f, _ := r.Float64()
	return jsonv.FormatNumber(f)
}

// collectIssues walks the validator's error tree down to the failures the
// model can fix, writing the project's own messages.
func collectIssues(ve *jsonschema.ValidationError, schema, args *jsonv.Value, out *[]schemaIssue) error {
	path := stringPath(ve.InstanceLocation)
	addAt := func(p []*jsonv.Value, rank, absent int, message, suggestion string) {
		*out = append(*out, newSchemaIssue(Issue{Path: p, Message: message, Suggestion: suggestion}, args, rank, absent))
	}
	add := func(p []*jsonv.Value, rank int, message, suggestion string) { addAt(p, rank, 0, message, suggestion) }
	switch k := ve.ErrorKind.(type) {
	case *kind.RefCycle:
		return errSchemaLoop
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range ve.Causes {
			if err := collectIssues(c, schema, args, out); err != nil {
				return err
			}
		}
	case *kind.AnyOf:
		if hasRefCycle(ve) {
			return errSchemaLoop
		}
		add(path, 20, "Does not match any of the allowed shapes.", suggestUnion)
	case *kind.OneOf:
		if hasRefCycle(ve) {
			return errSchemaLoop
		}
		if len(k.Subschemas) > 1 {
			add(path, 20, "Matches more than one of the allowed shapes.", suggestOneOf)
		} else {
			add(path, 20, "Does not match any of the allowed shapes.", suggestUnion)
		}
	case *kind.Type:
		want := strings.Join(typesInSchemaOrder(k.Want, schemaKeyword(schema, ve.SchemaURL, "type")), " or ")
		add(path, 0, "Expected "+want+", received "+k.Got+".", suggestType(want))
	case *kind.Required:
		for _, name := range k.Missing {
			p := append(append([]*jsonv.Value{}, path...), &jsonv.Value{Kind: jsonv.KindString, Str: name})
			suggestion, place := missingSuggestion(ve.SchemaURL, name, schema)
			addAt(p, 1, place, "Required property is missing.", suggestion)
		}
	case *kind.AdditionalProperties:
		keys := orderedKeys(lookupOrRoot(args, path), k.Properties)
		quoted := make([]string, len(keys))
		for i, key := range keys {
			quoted[i] = "'" + key + "'"
		}
		add(path, 30, "Unrecognized "+pluralWord("field", len(keys) == 1)+": "+strings.Join(quoted, ", ")+".", suggestUnrecognized(keys))
	case *kind.MinLength:
		n := strconv.Itoa(k.Want)
		add(path, 2, "Must be at least "+n+" "+pluralWord("character", k.Want == 1)+" long.", suggestLength(n, k.Want == 1, true))
	case *kind.MaxLength:
		n := strconv.Itoa(k.Want)
		add(path, 2, "Must be at most "+n+" "+pluralWord("character", k.Want == 1)+" long.", suggestLength(n, k.Want == 1, false))
	case *kind.MinItems:
		n := strconv.Itoa(k.Want)
		add(path, 2, "Must contain at least "+n+" "+pluralWord("item", k.Want == 1)+".", suggestItems(n, k.Want == 1, true))
	case *kind.MaxItems:
		n := strconv.Itoa(k.Want)
		add(path, 2, "Must contain at most "+n+" "+pluralWord("item", k.Want == 1)+".", suggestItems(n, k.Want == 1, false))
	case *kind.Minimum:
		n := ratText(k.Want)
		add(path, 2, "Must be greater than or equal to "+n+".", suggestBound(">=", n))
	case *kind.ExclusiveMinimum:
		n := ratText(k.Want)
		add(path, 2, "Must be greater than "+n+".", suggestBound(">", n))
	case *kind.Maximum:
		n := ratText(k.Want)
		add(path, 2, "Must be less than or equal to "+n+".", suggestBound("<=", n))
	case *kind.ExclusiveMaximum:
		n := ratText(k.Want)
		add(path, 2, "Must be less than "+n+".", suggestBound("<", n))
	case *kind.MultipleOf:
		n := ratText(k.Want)
		add(path, 2, "Must be a multiple of "+n+".", suggestMultipleOf(n))
	case *kind.Pattern:
		add(path, 3, "Does not match the pattern "+k.Want+".", suggestPattern)
	case *kind.Format:
		add(path, 3, "Is not a valid "+k.Want+".", suggestAnyFormat(k.Want))
	case *kind.Enum:
		values := make([]*jsonv.Value, 0, len(k.Want))
		for _, w := range k.Want {
			values = append(values, fromAny(w))
		}
		add(path, 4, "Is not one of the allowed values.", suggestOptions(values))
	case *kind.Const:
		want := fromAny(k.Want)
		if v := schemaKeyword(schema, ve.SchemaURL, "const"); v != nil && string(jsonv.AppendValue(nil, fromAny(toAny(v)))) == string(jsonv.AppendValue(nil, want)) {
			want = v // the schema's own key order
		}
		add(path, 4, "Is not the required value.", suggestExactly(want))
	case *kind.UniqueItems:
		add(path, 5, "Items "+strconv.Itoa(k.Duplicates[0])+" and "+strconv.Itoa(k.Duplicates[1])+" are equal.", suggestUnique)
	case *kind.FalseSchema:
		add(path, 6, "No value is allowed here.", "")
	default:
		add(path, 10, upperFirst(ve.ErrorKind.LocalizedString(printer))+".", "")
	}
	return nil
}

// hasRefCycle reports a $ref loop anywhere below ve (inside the branches of
// a union, whose errors are otherwise dropped).
func hasRefCycle(ve *jsonschema.ValidationError) bool {
	if _, ok := ve.ErrorKind.(*kind.RefCycle); ok {
		return true
	}
	for _, c := range ve.Causes {
		if hasRefCycle(c) {
			return true
		}
	}
	return false
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lookupOrRoot(args *jsonv.Value, path []*jsonv.Value) *jsonv.Value {
	if len(path) == 0 {
		return args
	}
	return jsonv.LookupPath(args, path)
}

// orderedKeys puts keys in the order the object lists them.
func orderedKeys(obj *jsonv.Value, keys []string) []string {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []string
	if obj != nil {
		for _, m := range obj.Members {
			if want[m.Key] {
				out = append(out, m.Key)
				delete(want, m.Key)
			}
		}
	}
	var rest []string
	for k := range want {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// schemaKeyword returns keyword's value in the schema at schemaLoc (the
// validator's location of the subschema), or nil.
func schemaKeyword(schema *jsonv.Value, schemaLoc, keyword string) *jsonv.Value {
	ptr := ""
	if i := strings.IndexByte(schemaLoc, '#'); i >= 0 {
		ptr = schemaLoc[i:]
	}
	return jsonv.LookupPointer(schema, ptr).Get(keyword)
}

// typesInSchemaOrder puts the validator's expected types (in its own fixed
// order) in the order the schema lists them, as ajv reports them.
func typesInSchemaOrder(want []string, declared *jsonv.Value) []string {
	if declared == nil || declared.Kind != jsonv.KindArray {
		return want
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
	}
	var out []string
	for _, t := range declared.Arr {
		if t.Kind == jsonv.KindString && wanted[t.Str] {
			out = append(out, t.Str)
			delete(wanted, t.Str)
		}
	}
	if len(out) != len(want) {
		return want
	}
	return out
}

// missingSuggestion names the type a missing property needs, when its
// schema declares exactly one, and gives the property's place among the
// schema's properties.
func missingSuggestion(schemaLoc, name string, schema *jsonv.Value) (string, int) {
	ptr := ""
	if i := strings.IndexByte(schemaLoc, '#'); i >= 0 {
		ptr = schemaLoc[i:]
	}
	ptr = strings.TrimSuffix(ptr, "/required")
	props := jsonv.LookupPointer(schema, ptr).Get("properties")
	place := math.MaxInt16
	if props != nil {
		for i, m := range props.Members {
			if m.Key == name {
				place = i
			}
		}
	}
	if t := props.Get(name).Get("type"); t != nil && t.Kind == jsonv.KindString {
		return suggestType(t.Str), place
	}
	return suggestMissing, place
}

// fromAny converts a validator value back to a Value.
func fromAny(v any) *jsonv.Value {
	switch x := v.(type) {
	case nil:
		return &jsonv.Value{}
	case bool:
		return &jsonv.Value{Kind: jsonv.KindBool, Bool: x}
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return &jsonv.Value{Kind: jsonv.KindNumber, Num: f}
	case float64:
		return &jsonv.Value{Kind: jsonv.KindNumber, Num: x}
	case string:
		return &jsonv.Value{Kind: jsonv.KindString, Str: x}
	case []any:
		out := &jsonv.Value{Kind: jsonv.KindArray}
		for _, item := range x {
			out.Arr = append(out.Arr, fromAny(item))
		}
		return out
	case map[string]any:
		out := &jsonv.Value{Kind: jsonv.KindObject}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out.Members = append(out.Members, jsonv.Member{Key: k, Value: fromAny(x[k])})
		}
		return out
	}
	return &jsonv.Value{Kind: jsonv.KindString, Str: fmt.Sprint(v)}
}

package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
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

// schemaCacheSize bounds the compiled schemas kept between calls, and
// schemaCacheBytes the JSON text they were compiled from and their keys
// (but for the last one kept, whatever its size): a compiled schema takes
// many times the memory of its text, and the cache lives as long as the
// instance, so large schemas must not pile up in it.
const (
	schemaCacheSize  = 64
	schemaCacheBytes = 1 << 20
)

// schemaCache keeps compiled schemas by the JSON text they came in, so
// validating against the same schema again compiles nothing and costs one
// map lookup (not a hash of the schema, nor writing it out again).
var schemaCache = struct {
	sync.Mutex
	byText map[string]*compiled
	order  []string
	bytes  int // of all entries: their keys and the text compiled
}{byText: map[string]*compiled{}}

// compiled is a schema as the cache keeps it: the validator's form, the
// fast path of a flat object schema (nil when it has none), and what the
// count of the validator's work found of its subschemas.
type compiled struct {
	sch    *jsonschema.Schema
	plan   *flatPlan
	memo   *schemaMemo
	size   int // bytes the cache counts: the key and the text compiled
	values int // the JSON values the key's text holds
}

// Schema is the schema of a validate request: its JSON text as the request
// wrote it (nil when unknown: written out again), and its decoded value,
// nil when the request's decoder left the text undecoded since it is a
// compiled schema's (KnownSchema): it is decoded here if it is needed.
type Schema struct {
	Value *jsonv.Value
	Text  []byte
	// Compiled is what KnownSchema found for Text when the request's
	// decoder asked it (nil: not asked, or not found).
	Compiled any
	// Decoder decodes Text when Value is nil and the value is needed (a
	// new one when nil); what it decodes lives until its next document.
	Decoder *jsonv.Decoder
}

// KnownSchema says whether text is the text of a schema the cache holds
// compiled (its entry, for Schema.Compiled; nil when not), and how many
// JSON values it holds: the decoder of a validate request need not decode
// it again (jsonv.Known).
func KnownSchema(text []byte) (any, int) {
	schemaCache.Lock()
	defer schemaCache.Unlock()
	entry, ok := schemaCache.byText[jsonv.View(text)]
	if !ok {
		return nil, 0
	}
	return entry, entry.values
}

// value is s's decoded value, decoding its text when the request's
// decoder did not.
func (s Schema) value() (*jsonv.Value, error) {
	if s.Value != nil {
		return s.Value, nil
	}
	if s.Decoder == nil {
		s.Decoder = &jsonv.Decoder{}
	}
	return s.Decoder.Parse(s.Text, abi.MaxDepth, 0)
}

// noRemoteRefs refuses every reference outside the request's schema: the
// module has no network and no file system, by design.
type noRemoteRefs struct{}

func (noRemoteRefs) Load(url string) (any, error) {
	return nil, fmt.Errorf("references outside the schema are not allowed: %s", url)
}

// compileSchema returns the compiled form of schema, from the cache when
// its text was compiled before. The same schema written two ways is two
// entries, each compiled from the schema's own text, alike.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot"); the compilation is another, so that the lookup
// every call makes is a small method HotSpot compiles early.
//
//go:noinline
func compileSchema(schema Schema) (*compiled, error) {
	if entry, ok := schema.Compiled.(*compiled); ok {
		return entry, nil // found as the request was decoded
	}
	given := schema.Text
	if given == nil {
		given = jsonv.AppendValue(nil, schema.Value)
	}
	schemaCache.Lock()
	found, ok := schemaCache.byText[jsonv.View(given)]
	schemaCache.Unlock()
	if ok {
		return found, nil
	}
	return compileNew(schema.Value, string(given))
}

// compileNew compiles schema, whose text as given is key (schema nil: not
// decoded yet), and keeps it in the cache.
//
//go:noinline
func compileNew(schema *jsonv.Value, key string) (*compiled, error) {
	// The cache keeps the compiled schema and the strings in it, so they
	// come from a decode of the schema's own text, the key (the same
	// value as the request's): an entry holds on to its schema, not to the
	// request the schema came in. The decode also counts the values the
	// text holds (KnownSchema).
	var d jsonv.Decoder
	own, err := d.Parse([]byte(key), abi.MaxDepth, 0)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		schema = own // read before clampCounts changes own, below
	}
	text := jsonv.AppendValue(nil, schema)
	if at, found := jsonv.Overflowing(schema); found {
		return nil, fmt.Errorf("%s holds a number beyond the float64 range (±1.7976931348623157e308), which JSON.parse reads as Infinity: a schema cannot state it", strconv.Quote(at))
	}
	// The locations first: finding the first count out of range by its
	// JSON Pointer writes the pointer of each one, which the bound on the
	// locations keeps linear.
	limit := locationBudget(len(text))
	locationsOver := locationBytes(schema, 0, limit) > limit
	if hasCountOutOfRange(schema) && !locationsOver {
		at, n, _ := countOutOfRange(schema)
		return nil, fmt.Errorf("%s is %s, more than the largest count allowed, 9007199254740992", strconv.Quote(at), jsonv.FormatNumber(n))
	}
	if locationsOver {
		return nil, &TooMuchWorkError{"the schema's subschemas have locations longer than " + strconv.Itoa(limit) +
			" bytes in all (16 per byte of the schema, plus 1 MiB): a long property name lies above many of them"}
	}
	if err := compileWithin(schema, CompileBudget(len(text))); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noRemoteRefs{})
	clampCounts(own)
	if err := c.AddResource(schemaURL, toAny(own)); err != nil {
		orderFaults(own, err)
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		orderFaults(own, err)
		return nil, err
	}
	entry := &compiled{sch: sch, plan: planFor(own), memo: newSchemaMemo(), size: len(key) + len(text), values: d.Count()}
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if _, ok := schemaCache.byText[key]; !ok {
		for len(schemaCache.order) >= schemaCacheSize || len(schemaCache.order) > 0 && schemaCache.bytes+entry.size > schemaCacheBytes {
			oldest := schemaCache.order[0]
			schemaCache.bytes -= schemaCache.byText[oldest].size
			delete(schemaCache.byText, oldest)
			schemaCache.order = schemaCache.order[1:]
		}
		schemaCache.byText[key] = entry
		schemaCache.bytes += entry.size
		schemaCache.order = append(schemaCache.order, key)
	}
	return entry, nil
}

// orderFaults puts the faults of a schema that fails its metaschema (err,
// for the schema doc) in one order, the order of the schema's text: each
// group of faults by the first fault in it (a fault at an earlier member
// first, one at a member before those inside it), then by the metaschema
// keyword that found it, then by its text. The validator finds them
// walking Go maps, whose order changes from call to call, and the message
// lists them as found.
func orderFaults(doc *jsonv.Value, err error) {
	var invalid *jsonschema.SchemaValidationError
	var fault *jsonschema.ValidationError
	if !errors.As(err, &invalid) || !errors.As(invalid.Err, &fault) {
		return
	}
	idx := &jsonv.Index{}
	// positions is where f is in doc: the position of each member or item
	// along its location (an unknown one after all others).
	positions := func(f *jsonschema.ValidationError) []int {
		var out []int
		cur := doc
		for _, tok := range f.InstanceLocation {
			i := -1
			switch {
			case cur == nil:
			case cur.Kind == jsonv.KindObject:
				if i = idx.Position(cur, tok); i >= 0 {
					cur = cur.Members[i].Value
				}
			case cur.Kind == jsonv.KindArray:
				if n, err := strconv.Atoi(tok); err == nil && n >= 0 && n < len(cur.Arr) {
					i, cur = n, cur.Arr[n]
				}
			}
			if i < 0 {
				i, cur = math.MaxInt, nil
			}
			out = append(out, i)
		}
		return out
	}
	printer := message.NewPrinter(language.English)
	type cause struct {
		*jsonschema.ValidationError
		first   []int // the positions of its first fault
		keyword string
		text    string // written only when the rest ties
	}
	// order sorts the faults below f and returns the positions of the
	// first of them (f's own when it has none below).
	var order func(f *jsonschema.ValidationError) []int
	order = func(f *jsonschema.ValidationError) []int {
		if len(f.Causes) == 0 {
			return positions(f)
		}
		causes := make([]cause, len(f.Causes))
		for i, c := range f.Causes {
			causes[i] = cause{ValidationError: c, first: order(c), keyword: c.SchemaURL + "/" + strings.Join(c.ErrorKind.KeywordPath(), "/")}
		}
		text := func(c *cause) string {
			if c.text == "" {
				c.text = " " + c.LocalizedError(printer) // never empty once written
			}
			return c.text
		}
		sort.SliceStable(causes, func(i, j int) bool {
			a, b := &causes[i], &causes[j]
			if c := slices.Compare(a.first, b.first); c != 0 {
				return c < 0
			}
			if a.keyword != b.keyword {
				return a.keyword < b.keyword
			}
			return text(a) < text(b)
		})
		for i := range causes {
			f.Causes[i] = causes[i].ValidationError
		}
		return causes[0].first
	}
	order(fault)
}

// countKeywords are the keywords whose value is a count; the validator
// reads them as integers, and one past 2^53 would wrap (2^64 reads as 0).
var countKeywords = map[string]bool{
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "minContains": true, "maxContains": true,
}

// clampCounts lowers every count keyword of schema above math.MaxInt to
// math.MaxInt, where int is 32 bits (the TinyGo build): the validator reads
// counts as int, and 2^31 or more would wrap. No string, array or object in
// a request reaches 2^31, so a count of math.MaxInt fails and passes exactly
// where the larger one does; the messages read the schema's own value
// (countText). Where int is 64 bits, counts are at most 2^53 by now and
// nothing changes.
func clampCounts(schema *jsonv.Value) {
	for _, item := range schema.Arr { // none but in an array
		clampCounts(item)
	}
	for _, m := range schema.Members { // none but in an object
		switch {
		case countKeywords[m.Key] && m.Value.Kind == jsonv.KindNumber:
			m.Value.Num = min(m.Value.Num, math.MaxInt)
		case m.Key == "const" || m.Key == "enum" || m.Key == "default" || m.Key == "examples":
		default:
			clampCounts(m.Value)
		}
	}
}

// countText is the decimal text of the count keyword's value that the
// validator reported as want: the schema's own value where clampCounts
// lowered it.
func countText(want int, schema *jsonv.Value, idx *jsonv.Index, schemaLoc, keyword string) string {
	if want == math.MaxInt {
		if v := schemaKeyword(schema, idx, schemaLoc, keyword); v != nil && v.Kind == jsonv.KindNumber && v.Num >= math.MaxInt {
			return jsonv.FormatNumber(math.Trunc(v.Num))
		}
	}
	return strconv.Itoa(want)
}

// countMessage is a count keyword's message: "Must be at least 3
// characters long." from its lead, the count (want, and n, its text), the
// counted noun and the end.
func countMessage(lead string, want int, n, noun, end string) string {
	return lead + " " + n + " " + pluralWord(noun, want == 1) + end
}

// countOutOfRange finds the count keywords of schema whose value is past
// 2^53 and returns the first by JSON Pointer (so the same one whatever the
// order of the schema's members), with its value. Values of const, enum,
// default and examples are data, not keywords, and are not searched.
func countOutOfRange(schema *jsonv.Value) (at string, value float64, found bool) {
	var tokens []string
	var walk func(v *jsonv.Value)
	walk = func(v *jsonv.Value) {
		switch v.Kind {
		case jsonv.KindArray:
			for i, item := range v.Arr {
				tokens = append(tokens, strconv.Itoa(i))
				walk(item)
				tokens = tokens[:len(tokens)-1]
			}
		case jsonv.KindObject:
			for _, m := range v.Members {
				switch {
				case countKeywords[m.Key] && m.Value.Kind == jsonv.KindNumber && m.Value.Num > 1<<53:
					p := "#/" + strings.Join(append(tokens[:len(tokens):len(tokens)], jsonv.EscapeToken(m.Key)), "/")
					if !found || p < at {
						at, value, found = p, m.Value.Num, true
					}
				case m.Key == "const" || m.Key == "enum" || m.Key == "default" || m.Key == "examples":
				default:
					tokens = append(tokens, jsonv.EscapeToken(m.Key))
					walk(m.Value)
					tokens = tokens[:len(tokens)-1]
				}
			}
		}
	}
	walk(schema)
	return at, value, found
}

// hasCountOutOfRange reports whether countOutOfRange finds one, in one
// pass that writes no pointer.
func hasCountOutOfRange(v *jsonv.Value) bool {
	switch v.Kind {
	case jsonv.KindArray:
		for _, item := range v.Arr {
			if hasCountOutOfRange(item) {
				return true
			}
		}
	case jsonv.KindObject:
		for _, m := range v.Members {
			switch {
			case countKeywords[m.Key] && m.Value.Kind == jsonv.KindNumber && m.Value.Num > 1<<53:
				return true
			case m.Key == "const" || m.Key == "enum" || m.Key == "default" || m.Key == "examples":
			default:
				if hasCountOutOfRange(m.Value) {
					return true
				}
			}
		}
	}
	return false
}

// locationBudget bounds the total length of the JSON Pointers of the values
// of a schema of schemaBytes bytes of JSON: 16 per byte (a schema nested a
// few levels deep with short names needs 2 to 5), plus 1 MiB. The compiler writes one
// location per subschema, so a long key above many subschemas would make
// compiling take time and memory in the square of the schema's size; it
// is refused instead. The bound depends on the schema alone, as the cache
// of compiled schemas requires.
func locationBudget(schemaBytes int) int { return 16*schemaBytes + 1<<20 }

// locationBytes sums the lengths of the JSON Pointers of v's members and
// items, and theirs, below a pointer of base bytes, stopping once the sum
// passes limit.
func locationBytes(v *jsonv.Value, base, limit int) int {
	n := 0
	switch v.Kind {
	case jsonv.KindObject:
		for _, m := range v.Members {
			if n > limit {
				return n
			}
			p := base + 1 + len(m.Key)
			n += p + locationBytes(m.Value, p, limit-n-p)
		}
	case jsonv.KindArray:
		for i, item := range v.Arr {
			if n > limit {
				return n
			}
			p := base + 1 + len(strconv.Itoa(i))
			n += p + locationBytes(item, p, limit-n-p)
		}
	}
	return n
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

// WorkBudget is the steps a validate request of requestBytes bytes may
// take to gather the issues of its arguments (a step about 10 ns of
// native work, or a byte kept): 16 per byte of the request, plus 8 Mi.
// Gathering the issues of a value checked once per place the schema
// applies to it stays far below it; issues repeated many times over (a
// long required list on every item, a long name on every path) reach it,
// and the request is refused instead of answered in time that grows with
// the square of its size. The JSON Schema library's own check is counted
// against a budget of the same size before it runs (checkWithin), and its
// compiling of the schema against CompileBudget (compileWithin).
func WorkBudget(requestBytes int) int { return 16*requestBytes + 8<<20 }

// TooMuchWorkError reports a validation over its budget of steps, or a
// schema whose compiled form would be over its own bound (its message
// says which).
type TooMuchWorkError struct{ msg string }

func (e *TooMuchWorkError) Error() string { return e.msg }

func overBudget(limit int) error {
	return &TooMuchWorkError{"checking the arguments against the schema takes more than " + strconv.Itoa(limit) +
		" steps (16 per byte of the request, plus 8 Mi): the schema applies to them too many times over, or many issues repeat a long name"}
}

// workBudget counts the steps of gathering one validation's issues.
type workBudget struct{ Steps, Limit int }

// spend counts n steps of gathering issues in the budget of the
// validation.
func spend(b *workBudget, n int) error {
	if b.Steps += n; b.Steps > b.Limit {
		return overBudget(b.Limit)
	}
	return nil
}

// Validate checks args against schema, within budget steps (WorkBudget),
// and returns the issues, in the order of args and then of the schema;
// none means valid. idx (nil for a new one) finds members in schema and
// args.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func Validate(schema Schema, args *jsonv.Value, idx *jsonv.Index, budget int) ([]Issue, error) {
	if idx == nil {
		idx = &jsonv.Index{}
	}
	entry, err := compileSchema(schema)
	if err != nil {
		var work *TooMuchWorkError
		if errors.As(err, &work) {
			return nil, err
		}
		return nil, fmt.Errorf("invalid schema: %s", oneLine(err.Error()))
	}
	if entry.plan != nil && entry.plan.accepts(args) {
		return nil, nil // the fast path: valid, nothing to word
	}
	sch := entry.sch
	// The library's own check, counted before it runs.
	if err := checkWithin(sch, entry.memo, args, idx, budget); err != nil {
		return nil, err
	}
	b := &workBudget{Limit: budget}
	verr := sch.Validate(toAny(args))
	if verr == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, verr
	}
	doc, err := schema.value()
	if err != nil {
		return nil, err
	}
	var found []schemaIssue
	c := &collector{schema: doc, args: args, idx: idx, budget: b, suggestions: map[suggestionOf]string{}}
	if err := c.collect(ve, &found); err != nil {
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
	if a.Message != b.Message {
		return a.Message < b.Message
	}
	// Last the suggestion: issues equal in all of these write the same
	// line, so the order is total on what the envelope shows, whatever
	// order the validator found them in.
	return a.Suggestion < b.Suggestion
}

// newSchemaIssue builds the sort key of an issue at path. absent orders a
// last segment that args lacks (a missing property, by its place in the
// schema).
func newSchemaIssue(is Issue, args *jsonv.Value, idx *jsonv.Index, rank, absent int) schemaIssue {
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
				if i := idx.Position(cur, key); i >= 0 {
					pos = i
				}
			case jsonv.KindArray:
				if n, err := strconv.Atoi(key); err == nil {
					pos = n
				}
			}
			cur = idx.Step(cur, seg)
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

// collector gathers the issues of a validation. It counts its work in the
// validation's budget: an issue costs its path and the steps of building
// it, an error the length of its schema location (read to find the
// keyword's value), and a suggestion drawn from one keyword of the schema
// (a list of allowed values) is built once for all the issues that share
// it.
type collector struct {
	schema, args *jsonv.Value
	idx          *jsonv.Index
	budget       *workBudget
	suggestions  map[suggestionOf]string
	// err is the first budget overrun of an issue added (addAt): the
	// collection stops there.
	err error
}

// suggestionOf is a schema keyword whose suggestion is remembered.
type suggestionOf struct{ schemaURL, keyword string }

// costIssue is the steps of building an issue and keeping it (its
// message, its sort key), besides its path.
const costIssue = 256

// pathCost is the steps of placing an issue at path: a segment is kept in
// its sort key, looked up in args and compared while sorting, a step more
// per 8 bytes of it (a long key above many issues is read once per issue).
func pathCost(path []*jsonv.Value) int {
	n := 0
	for _, seg := range path {
		n += 24 + len(seg.Str)/8
	}
	return n
}

// locationCost is pathCost of an instance location.
func locationCost(loc []string) int {
	n := 0
	for _, seg := range loc {
		n += 24 + len(seg)/8
	}
	return n
}

// collect walks the validator's error tree down to the failures the model
// can fix, writing the project's own messages.
func (c *collector) collect(ve *jsonschema.ValidationError, out *[]schemaIssue) error {
	schema, args, idx := c.schema, c.args, c.idx
	if err := spend(c.budget, costIssue+locationCost(ve.InstanceLocation)+len(ve.SchemaURL)/8); err != nil {
		return err
	}
	path := stringPath(ve.InstanceLocation)
	// addAt and remembered are methods, not closures: closures over this
	// call's state were allocated on every call of collect in the module.
	switch k := ve.ErrorKind.(type) {
	case *kind.RefCycle:
		return errSchemaLoop
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, cause := range ve.Causes {
			if err := c.collect(cause, out); err != nil {
				return err
			}
		}
	case *kind.AnyOf:
		if hasRefCycle(ve) {
			return errSchemaLoop
		}
		c.addAt(out, path, 20, 0, "Does not match any of the allowed shapes.", "")
	case *kind.OneOf:
		if hasRefCycle(ve) {
			return errSchemaLoop
		}
		if len(k.Subschemas) > 1 {
			c.addAt(out, path, 20, 0, "Matches more than one of the allowed shapes.", suggestOneOf)
		} else {
			c.addAt(out, path, 20, 0, "Does not match any of the allowed shapes.", "")
		}
	case *kind.Type:
		want := strings.Join(typesInSchemaOrder(k.Want, schemaKeyword(schema, idx, ve.SchemaURL, "type")), " or ")
		c.addAt(out, path, 0, 0, "Expected "+want+", received "+k.Got+".", "")
	case *kind.Required:
		props := schemaProperties(ve.SchemaURL, schema, idx)
		for _, name := range k.Missing {
			p := append(append([]*jsonv.Value{}, path...), &jsonv.Value{Kind: jsonv.KindString, Str: name})
			suggestion, place := missingSuggestion(props, name, idx)
			c.addAt(out, p, 1, place, "Required property is missing.", suggestion)
		}
	case *kind.AdditionalProperties:
		obj := lookupOrRoot(args, path, idx)
		if obj != nil {
			if err := spend(c.budget, len(obj.Members)+len(k.Properties)); err != nil {
				return err
			}
		}
		keys := orderedKeys(obj, k.Properties)
		c.addAt(out, path, 30, 0, "Unrecognized "+pluralWord("field", len(keys) == 1)+".", suggestUnrecognized(keys))
		(*out)[len(*out)-1].Keys = keys
	case *kind.MinLength:
		c.addAt(out, path, 2, 0, countMessage("Must be at least", k.Want, countText(k.Want, schema, idx, ve.SchemaURL, "minLength"), "character", " long."), "")
	case *kind.MaxLength:
		c.addAt(out, path, 2, 0, countMessage("Must be at most", k.Want, countText(k.Want, schema, idx, ve.SchemaURL, "maxLength"), "character", " long."), "")
	case *kind.MinItems:
		c.addAt(out, path, 2, 0, countMessage("Must contain at least", k.Want, countText(k.Want, schema, idx, ve.SchemaURL, "minItems"), "item", "."), "")
	case *kind.MaxItems:
		c.addAt(out, path, 2, 0, countMessage("Must contain at most", k.Want, countText(k.Want, schema, idx, ve.SchemaURL, "maxItems"), "item", "."), "")
	case *kind.Minimum:
		c.addAt(out, path, 2, 0, suggestBound("greater than or equal to", ratText(k.Want)), "")
	case *kind.ExclusiveMinimum:
		c.addAt(out, path, 2, 0, suggestBound("greater than", ratText(k.Want)), "")
	case *kind.Maximum:
		c.addAt(out, path, 2, 0, suggestBound("less than or equal to", ratText(k.Want)), "")
	case *kind.ExclusiveMaximum:
		c.addAt(out, path, 2, 0, suggestBound("less than", ratText(k.Want)), "")
	case *kind.MultipleOf:
		c.addAt(out, path, 2, 0, suggestBound("a multiple of", ratText(k.Want)), "")
	case *kind.Pattern:
		c.addAt(out, path, 3, 0, "Does not match the pattern "+k.Want+".", "")
	case *kind.Format:
		c.addAt(out, path, 3, 0, "Is not a valid "+k.Want+".", suggestAnyFormat(k.Want))
	case *kind.Enum:
		c.addAt(out, path, 4, 0, "Is not one of the allowed values.", c.remembered(ve, "enum", func() string {
			values := make([]*jsonv.Value, 0, len(k.Want))
			for _, w := range k.Want {
				values = append(values, fromAny(w))
			}
			return suggestOptions(values)
		}))
	case *kind.Const:
		c.addAt(out, path, 4, 0, "Is not the required value.", c.remembered(ve, "const", func() string {
			want := fromAny(k.Want)
			if v := schemaKeyword(schema, idx, ve.SchemaURL, "const"); v != nil && string(jsonv.AppendValue(nil, fromAny(toAny(v)))) == string(jsonv.AppendValue(nil, want)) {
				want = v // the schema's own key order
			}
			return suggestExactly(want)
		}))
	case *kind.UniqueItems:
		c.addAt(out, path, 5, 0, "Items "+strconv.Itoa(k.Duplicates[0])+" and "+strconv.Itoa(k.Duplicates[1])+" are equal.", suggestUnique)
	case *kind.FalseSchema:
		c.addAt(out, path, 6, 0, "No value is allowed here.", "")
	default:
		c.addAt(out, path, 10, 0, upperFirst(ve.ErrorKind.LocalizedString(printer))+".", "")
	}
	return c.err
}

// addAt adds the issue at p, and keeps the first budget overrun in c.err.
func (c *collector) addAt(out *[]schemaIssue, p []*jsonv.Value, rank, absent int, message, suggestion string) {
	if c.err == nil {
		c.err = spend(c.budget, costIssue+pathCost(p))
	}
	*out = append(*out, newSchemaIssue(Issue{Path: p, Message: message, Suggestion: suggestion}, c.args, c.idx, rank, absent))
}

// remembered builds the suggestion of keyword at ve's schema once.
func (c *collector) remembered(ve *jsonschema.ValidationError, keyword string, build func() string) string {
	key := suggestionOf{ve.SchemaURL, keyword}
	s, ok := c.suggestions[key]
	if !ok {
		s = build()
		c.suggestions[key] = s
	}
	return s
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

func lookupOrRoot(args *jsonv.Value, path []*jsonv.Value, idx *jsonv.Index) *jsonv.Value {
	if len(path) == 0 {
		return args
	}
	return idx.LookupPath(args, path)
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
func schemaKeyword(schema *jsonv.Value, idx *jsonv.Index, schemaLoc, keyword string) *jsonv.Value {
	ptr := ""
	if i := strings.IndexByte(schemaLoc, '#'); i >= 0 {
		ptr = schemaLoc[i:]
	}
	return idx.Get(idx.LookupPointer(schema, ptr), keyword)
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

// schemaProperties returns the properties of the schema whose required
// keyword is at schemaLoc.
func schemaProperties(schemaLoc string, schema *jsonv.Value, idx *jsonv.Index) *jsonv.Value {
	ptr := ""
	if i := strings.IndexByte(schemaLoc, '#'); i >= 0 {
		ptr = schemaLoc[i:]
	}
	ptr = strings.TrimSuffix(ptr, "/required")
	return idx.Get(idx.LookupPointer(schema, ptr), "properties")
}

// missingSuggestion names the type a missing property needs, when its
// schema's properties declare exactly one ("" otherwise: the message
// already says the property is required), and gives the property's place
// among them.
func missingSuggestion(props *jsonv.Value, name string, idx *jsonv.Index) (string, int) {
	place := math.MaxInt16
	if i := idx.Position(props, name); i >= 0 {
		place = i
	}
	if t := idx.Get(idx.Get(props, name), "type"); t != nil && t.Kind == jsonv.KindString {
		return suggestType(t.Str), place
	}
	return "", place
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

package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// LockfileVersion is the format version of contract lockfiles.
const LockfileVersion = 1

// contractFields are the parts of an MCP Tool that make up its contract.
var contractFields = []string{"annotations", "description", "inputSchema", "name", "outputSchema", "title"}

// lockedTool is one tool of a lockfile: its canonical contract and digest.
type lockedTool struct {
	name      string
	contract  *jsonv.Value // canonical: sorted keys, contract fields only
	canonical []byte
	digest    string
}

// Lockfile is a contract: its tools sorted by name, and a digest of all.
type Lockfile struct {
	tools  []lockedTool
	digest string
	size   int // bytes of the tools' canonical JSON
}

func (l *Lockfile) find(name string) *lockedTool {
	i := sort.Search(len(l.tools), func(i int) bool { return l.tools[i].name >= name })
	if i < len(l.tools) && l.tools[i].name == name {
		return &l.tools[i]
	}
	return nil
}

// lessUTF16 orders keys by UTF-16 code units, as RFC 8785 canonical JSON,
// without converting them: code points compare as their first code unit
// (a supplementary one as its high surrogate), then as their second.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return ua < ub
			}
			return ra < rb // same high surrogate: the low ones order as the runes
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) < len(b)
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xd800 + (r-0x10000)>>10
	}
	return r
}

// canonicalize sorts the keys of every object of v, in place, and returns
// v (a repeated key cannot occur: the decoder keeps one). The request the
// contract came in is read no more in its own order, and a copy of a
// contract of 180,000 values took some 10 MB of the module's memory.
func canonicalize(v *jsonv.Value) *jsonv.Value {
	for _, item := range v.Arr { // none but in an array
		canonicalize(item)
	}
	for _, m := range v.Members { // none but in an object
		canonicalize(m.Value)
	}
	if len(v.Members) > 1 {
		sort.SliceStable(v.Members, func(i, j int) bool { return lessUTF16(v.Members[i].Key, v.Members[j].Key) })
	}
	return v
}

// wrongType reports a member of the wrong JSON type, worded as every
// request error is.
func wrongType(name, want string, got *jsonv.Value) error {
	return fmt.Errorf("%s must be %s, got %s", strconv.Quote(name), want, got.Kind)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// lockTools builds the lockfile of MCP Tool objects; field names the tools
// in an error.
func lockTools(field string, tools *jsonv.Value) (*Lockfile, error) {
	l := &Lockfile{}
	seen := map[string]bool{}
	for i, t := range tools.Arr {
		at := field + "[" + strconv.Itoa(i) + "]"
		if t.Kind != jsonv.KindObject {
			return nil, wrongType(at, "an MCP Tool object", t)
		}
		name := t.Get("name")
		if name == nil || name.Kind != jsonv.KindString || name.Str == "" {
			return nil, fmt.Errorf("%s must have a non-empty string \"name\"", strconv.Quote(at))
		}
		if seen[name.Str] {
			return nil, fmt.Errorf("%s repeats the tool name %s", strconv.Quote(at), strconv.Quote(name.Str))
		}
		seen[name.Str] = true
		if s := t.Get("inputSchema"); s != nil && s.Kind != jsonv.KindObject && s.Kind != jsonv.KindBool {
			return nil, wrongType(at+".inputSchema", "an object", s)
		}
		contract := &jsonv.Value{Kind: jsonv.KindObject}
		for _, f := range contractFields {
			if v := t.Get(f); v != nil && v.Kind != jsonv.KindNull {
				contract.Members = append(contract.Members, jsonv.Member{Key: f, Value: canonicalize(v)})
			}
		}
		// The canonical JSON cannot hold a number that overflowed: written
		// as null it would pin another contract.
		if ptr, found := jsonv.Overflowing(contract); found {
			return nil, fmt.Errorf("%s holds a number beyond the float64 range (±1.7976931348623157e308) at %s, which JSON.parse reads as Infinity: a contract cannot state it", strconv.Quote(at), strconv.Quote(ptr))
		}
		canonical := jsonv.AppendValue(nil, contract)
		l.tools = append(l.tools, lockedTool{name: name.Str, contract: contract, canonical: canonical, digest: sha256Hex(canonical)})
		l.size += len(canonical)
	}
	sort.Slice(l.tools, func(i, j int) bool { return l.tools[i].name < l.tools[j].name })
	l.digest = l.overallDigest()
	return l, nil
}

// overallDigest is the sha256 of the tools' names and digests, in order.
func (l *Lockfile) overallDigest() string {
	var b []byte
	for _, t := range l.tools {
		b = append(b, t.name...)
		b = append(b, ' ')
		b = append(b, t.digest...)
		b = append(b, '\n')
	}
	return sha256Hex(b)
}

// readLockfile reads a lockfile back, checking each tool's digest.
func readLockfile(field string, v *jsonv.Value) (*Lockfile, error) {
	if ver := v.Get("lockfileVersion"); ver == nil || ver.Kind != jsonv.KindNumber || ver.Num != LockfileVersion {
		return nil, fmt.Errorf("%s has an unsupported lockfileVersion (want %d)", strconv.Quote(field), LockfileVersion)
	}
	tools := v.Get("tools")
	if tools == nil || tools.Kind != jsonv.KindArray {
		return nil, fmt.Errorf("%s must have a \"tools\" array", strconv.Quote(field))
	}
	contracts := &jsonv.Value{Kind: jsonv.KindArray}
	for i, t := range tools.Arr {
		c := t.Get("contract")
		if c == nil || c.Kind != jsonv.KindObject {
			return nil, fmt.Errorf("%s must have a \"contract\" object", strconv.Quote(field+".tools["+strconv.Itoa(i)+"]"))
		}
		contracts.Arr = append(contracts.Arr, c)
	}
	l, err := lockTools(field+".tools", contracts)
	if err != nil {
		return nil, err
	}
	for i, t := range tools.Arr {
		name, _ := jsonv.GetString(t.Get("contract"), "name")
		if d, _ := jsonv.GetString(t, "digest"); d != "" && d != l.find(name).digest {
			return nil, fmt.Errorf("%s (%s): digest does not match its contract", strconv.Quote(field+".tools["+strconv.Itoa(i)+"]"), name)
		}
	}
	return l, nil
}

// ReadContract reads a lockfile, a tools array or a tools/list result;
// field names it in an error, whose message the caller prefixes with the
// export's name.
func ReadContract(field string, v *jsonv.Value) (*Lockfile, error) {
	switch {
	case v == nil:
		return nil, fmt.Errorf("%s is required", strconv.Quote(field))
	case v.Kind == jsonv.KindArray:
		return lockTools(field, v)
	case v.Kind == jsonv.KindObject && v.Get("lockfileVersion") != nil:
		return readLockfile(field, v)
	case v.Kind == jsonv.KindObject && v.Get("tools") != nil && v.Get("tools").Kind == jsonv.KindArray:
		return lockTools(field+".tools", v.Get("tools"))
	}
	return nil, wrongType(field, "a lockfile, an array of tools or a tools/list result", v)
}

// AppendJSON writes the lockfile after b.
func (l *Lockfile) AppendJSON(b []byte) []byte {
	w := jsonv.Writer{B: b}
	w.RawNum(`{"lockfileVersion":`, LockfileVersion)
	w.RawStr(`,"digest":`, l.digest)
	w.Raw(`,"tools":[`)
	for i, t := range l.tools {
		w.Comma(i)
		w.RawStr(`{"name":`, t.name)
		w.RawStr(`,"digest":`, t.digest)
		w.Raw(`,"contract":`)
		w.Raw(string(t.canonical))
		w.Byte('}')
	}
	w.Raw("]}")
	return w.B
}

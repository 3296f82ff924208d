package core

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/toolerr/toolerr/abi"
)

// LockfileVersion is the format version of contract lockfiles.
const LockfileVersion = 1

// contractFields are the parts of an MCP Tool that make up its contract.
var contractFields = []string{"annotations", "description", "inputSchema", "name", "outputSchema", "title"}

// lockedTool is one tool of a lockfile: its canonical contract and digest.
type lockedTool struct {
	name      string
	contract  *Value // canonical: sorted keys, contract fields only
	canonical []byte
	digest    string
}

// lockfile is a contract: its tools sorted by name, and a digest of all.
type lockfile struct {
	tools  []lockedTool
	digest string
}

func (l *lockfile) find(name string) *lockedTool {
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

// canonicalize returns v with every object's keys sorted (a repeated key
// cannot occur: the decoder keeps one).
func canonicalize(v *Value) *Value {
	switch v.Kind {
	case KindArray:
		out := &Value{Kind: KindArray, Arr: make([]*Value, len(v.Arr))}
		for i, item := range v.Arr {
			out.Arr[i] = canonicalize(item)
		}
		return out
	case KindObject:
		out := &Value{Kind: KindObject, Members: make([]Member, len(v.Members))}
		for i, m := range v.Members {
			out.Members[i] = Member{m.Key, canonicalize(m.Value)}
		}
		sort.Slice(out.Members, func(i, j int) bool { return lessUTF16(out.Members[i].Key, out.Members[j].Key) })
		return out
	}
	return v
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// lockTools builds the lockfile of MCP Tool objects.
func (r *request) lockTools(field string, tools *Value) (*lockfile, *abi.Error) {
	l := &lockfile{}
	seen := map[string]bool{}
	for i, t := range tools.Arr {
		at := field + "[" + strconv.Itoa(i) + "]"
		if t.Kind != KindObject {
			return nil, r.wrongType(at, "an MCP Tool object", t)
		}
		name := t.Get("name")
		if name == nil || name.Kind != KindString || name.Str == "" {
			return nil, r.fail("%s must have a non-empty string \"name\"", strconv.Quote(at))
		}
		if seen[name.Str] {
			return nil, r.fail("%s repeats the tool name %s", strconv.Quote(at), strconv.Quote(name.Str))
		}
		seen[name.Str] = true
		if s := t.Get("inputSchema"); s != nil && s.Kind != KindObject && s.Kind != KindBool {
			return nil, r.wrongType(at+".inputSchema", "an object", s)
		}
		contract := &Value{Kind: KindObject}
		for _, f := range contractFields {
			if v := t.Get(f); v != nil && v.Kind != KindNull {
				contract.Members = append(contract.Members, Member{f, canonicalize(v)})
			}
		}
		canonical := appendJSONValue(nil, contract)
		l.tools = append(l.tools, lockedTool{name: name.Str, contract: contract, canonical: canonical, digest: sha256Hex(canonical)})
	}
	sort.Slice(l.tools, func(i, j int) bool { return l.tools[i].name < l.tools[j].name })
	l.digest = l.overallDigest()
	return l, nil
}

// overallDigest is the sha256 of the tools' names and digests, in order.
func (l *lockfile) overallDigest() string {
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
func (r *request) readLockfile(field string, v *Value) (*lockfile, *abi.Error) {
	if ver := v.Get("lockfileVersion"); ver == nil || ver.Kind != KindNumber || ver.Num != LockfileVersion {
		return nil, r.fail("%s has an unsupported lockfileVersion (want %d)", strconv.Quote(field), LockfileVersion)
	}
	tools := v.Get("tools")
	if tools == nil || tools.Kind != KindArray {
		return nil, r.fail("%s must have a \"tools\" array", strconv.Quote(field))
	}
	contracts := &Value{Kind: KindArray}
	for i, t := range tools.Arr {
		c := t.Get("contract")
		if c == nil || c.Kind != KindObject {
			return nil, r.fail("%s must have a \"contract\" object", strconv.Quote(field+".tools["+strconv.Itoa(i)+"]"))
		}
		contracts.Arr = append(contracts.Arr, c)
	}
	l, err := r.lockTools(field+".tools", contracts)
	if err != nil {
		return nil, err
	}
	for i, t := range tools.Arr {
		name, _ := str(t.Get("contract"), "name")
		if d, _ := str(t, "digest"); d != "" && d != l.find(name).digest {
			return nil, r.fail("%s (%s): digest does not match its contract", strconv.Quote(field+".tools["+strconv.Itoa(i)+"]"), name)
		}
	}
	return l, nil
}

// readContract reads a lockfile, a tools array or a tools/list result.
func (r *request) readContract(field string, v *Value) (*lockfile, *abi.Error) {
	switch {
	case v == nil:
		return nil, r.fail("%s is required", strconv.Quote(field))
	case v.Kind == KindArray:
		return r.lockTools(field, v)
	case v.Kind == KindObject && v.Get("lockfileVersion") != nil:
		return r.readLockfile(field, v)
	case v.Kind == KindObject && v.Get("tools") != nil && v.Get("tools").Kind == KindArray:
		return r.lockTools(field+".tools", v.Get("tools"))
	}
	return nil, r.wrongType(field, "a lockfile, an array of tools or a tools/list result", v)
}

// appendJSON writes the lockfile after b.
func (l *lockfile) appendJSON(b []byte) []byte {
	w := jsonWriter{b: b}
	w.raw(`{"lockfileVersion":`)
	w.num(LockfileVersion)
	w.raw(`,"digest":`)
	w.str(l.digest)
	w.raw(`,"tools":[`)
	for i, t := range l.tools {
		if i > 0 {
			w.byte(',')
		}
		w.raw(`{"name":`)
		w.str(t.name)
		w.raw(`,"digest":`)
		w.str(t.digest)
		w.raw(`,"contract":`)
		w.raw(string(t.canonical))
		w.byte('}')
	}
	w.raw("]}")
	return w.b
}

func callContractLock(c *call, input []byte) *abi.Error {
	r, err := c.decode("contract_lock", input, "tools")
	if err != nil {
		return err
	}
	l, err := r.readContract("tools", r.obj.Get("tools"))
	if err != nil {
		return err
	}
	c.out = l.appendJSON(c.out)
	return nil
}

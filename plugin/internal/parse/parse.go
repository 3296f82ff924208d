// Package parse reads an envelope back from a model-facing text: the typed
// client's side of the contract (docs/CONTRACT.md, "Parsing"). It runs in
// time linear in its input and never fails: text without an envelope gives
// nil.
package parse

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// Envelope is what Parse finds: a tool error or a validation error.
type Envelope struct {
	Kind       string // "tool_error" or "validation_error"
	ToolError  *ParsedToolError
	Validation *ParsedValidation
}

// ParsedToolError is a <tool_error> read back. Details keep their order;
// their values are the text the envelope shows.
type ParsedToolError struct {
	Code       string
	Severity   string
	Message    string
	Recovery   *string
	Actions    []string
	Details    []ParsedDetail
	RetryAfter *float64
}

// ParsedDetail is one <detail> read back.
type ParsedDetail struct{ Key, Value string }

// ParsedValidation is a <validation_error> read back.
type ParsedValidation struct {
	Action   string
	Fields   []ParsedField
	Recovery *string
	Contract *ParsedContract
}

// ParsedField is one <field> of a validation error.
type ParsedField struct{ Name, Message string }

// ParsedContract is a <contract_awareness> block read back.
type ParsedContract struct {
	Tool        string
	Action      string
	ChangeCount int64
	MaxSeverity string
	Changes     []ParsedChange
}

// ParsedChange is one <change> of a contract awareness block.
type ParsedChange struct {
	Severity, Field, Description string
	Before, After                *string
}

// Parse finds the first <tool_error> or <validation_error> envelope in text
// and reads it; nil when there is none. It runs in time linear in len(text):
// every scan moves forward, and a closing tag that is missing once is never
// looked for again.
func Parse(text string) *Envelope {
	start, kind := findEnvelope(text)
	if start < 0 {
		return nil
	}
	var top [4]attr
	attrs, bodyStart, ok := readOpenTag(text, start+1+len(kind), top[:0])
	if !ok {
		return nil
	}
	closer := "</tool_error>"
	if kind == "validation_error" {
		closer = "</validation_error>"
	}
	bodyEnd := strings.Index(text[bodyStart:], closer)
	body := text[bodyStart:]
	if bodyEnd >= 0 {
		body = body[:bodyEnd]
	}
	s := scanner{body: body}
	if kind == "tool_error" {
		t := s.toolError(attrs)
		if t == nil {
			return nil
		}
		return &Envelope{Kind: kind, ToolError: t}
	}
	return &Envelope{Kind: kind, Validation: s.validation(attrs)}
}

// findEnvelope returns the offset of the first "<tool_error" or
// "<validation_error" that is followed by whitespace, '>' or '/'.
func findEnvelope(text string) (int, string) {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return -1, ""
		}
		i += j
		for _, kind := range [...]string{"tool_error", "validation_error"} {
			rest := text[i+1:]
			if strings.HasPrefix(rest, kind) && len(rest) > len(kind) && tagNameEnds(rest[len(kind)]) {
				return i, kind
			}
		}
		i++
	}
	return -1, ""
}

func tagNameEnds(c byte) bool {
	return c == '>' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/'
}

// attr is one attribute of a tag, its value decoded.
type attr struct{ name, value string }

// attrList holds a tag's attributes in document order; a repeated name keeps
// its first value.
type attrList []attr

// get returns the value of the attribute name.
func (as attrList) get(name string) (string, bool) {
	for _, a := range as {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// manyAttrs is the attribute count from which has keeps a set of names.
const manyAttrs = 8

// has reports whether the list holds name; from manyAttrs attributes on it
// answers from *names, which it builds then.
func (as attrList) has(name string, names *map[string]bool) bool {
	if *names == nil {
		if len(as) < manyAttrs {
			_, ok := as.get(name)
			return ok
		}
		*names = make(map[string]bool, 2*len(as))
		for _, a := range as {
			(*names)[a.name] = true
		}
	}
	return (*names)[name]
}

// value is get without the presence flag.
func (as attrList) value(name string) string {
	v, _ := as.get(name)
	return v
}

// readOpenTag reads attributes from pos (just after the tag name) to the
// closing '>', which may not sit inside a quoted value, appending them to
// buf.
func readOpenTag(text string, pos int, buf attrList) (attrList, int, bool) {
	attrs := buf
	// names finds repeated names once a tag has many attributes, so that
	// checking each new one is not a scan of all before it.
	var names map[string]bool
	for pos < len(text) {
		c := text[pos]
		switch {
		case c == '>':
			return attrs, pos + 1, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/':
			pos++
		default:
			nameEnd := pos
			for nameEnd < len(text) && isNameByte(text[nameEnd]) {
				nameEnd++
			}
			if nameEnd == pos {
				return nil, 0, false
			}
			name := text[pos:nameEnd]
			pos = nameEnd
			for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
				pos++
			}
			if pos >= len(text) || text[pos] != '=' {
				continue // an attribute without a value
			}
			pos++
			for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
				pos++
			}
			if pos >= len(text) || (text[pos] != '"' && text[pos] != '\'') {
				return nil, 0, false
			}
			q := text[pos]
			end := strings.IndexByte(text[pos+1:], q)
			if end < 0 {
				return nil, 0, false
			}
			if !attrs.has(name, &names) {
				attrs = append(attrs, attr{name, decodeEntities(text[pos+1 : pos+1+end])})
				if names != nil {
					names[name] = true
				}
			}
			pos += end + 2
		}
	}
	return nil, 0, false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == ':' || c == '.' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// scanner walks the body of one envelope.
type scanner struct {
	body    string
	pos     int
	missing map[string]bool // names whose closing tag is known to be absent after pos
	// attrBuf holds the attributes next returned last; the next call to
	// next reuses it.
	attrBuf attrList
}

// indexCloser returns the offset in s of the first "</name>", or -1.
func indexCloser(s, name string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return -1
		}
		i += j
		rest := s[i+2:]
		if len(rest) > len(name) && rest[len(name)] == '>' && rest[:len(name)] == name {
			return i
		}
		i += 2
	}
}

// next finds the next opening tag at or after s.pos, moves past it and
// returns its name and its attributes (when it has any).
func (s *scanner) next() (name string, attrs attrList, ok bool) {
	for {
		j := strings.IndexByte(s.body[s.pos:], '<')
		if j < 0 {
			return "", nil, false
		}
		at := s.pos + j
		nameEnd := at + 1
		for nameEnd < len(s.body) && isNameByte(s.body[nameEnd]) {
			nameEnd++
		}
		name = s.body[at+1 : nameEnd]
		if name == "" || nameEnd >= len(s.body) || !tagNameEnds(s.body[nameEnd]) {
			s.pos = at + 1
			continue
		}
		if s.body[nameEnd] == '>' {
			s.pos = nameEnd + 1
			return name, nil, true
		}
		// Only a tag we read attributes from is parsed further; quoted
		// values are scanned once, so this stays linear.
		var after int
		attrs, after, ok = readOpenTag(s.body, nameEnd, s.attrBuf[:0])
		s.attrBuf = attrs
		if !ok {
			s.pos = at + 1
			continue
		}
		s.pos = after
		return name, attrs, true
	}
}

// element returns the raw text from s.pos to the closing tag of name and
// moves past it; ok is false when the closing tag is missing.
func (s *scanner) element(name string) (string, bool) {
	from := s.pos
	if s.missing[name] {
		return "", false
	}
	end := indexCloser(s.body[from:], name)
	if end < 0 {
		if s.missing == nil {
			s.missing = map[string]bool{}
		}
		s.missing[name] = true
		return "", false
	}
	s.pos = from + end + len("</>") + len(name)
	return s.body[from : from+end], true
}

// text is the trimmed, decoded content of an element.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func text(raw string) string { return decodeEntities(trimJS(raw)) }

// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func (s *scanner) toolError(attrs attrList) *ParsedToolError {
	t := &ParsedToolError{Code: "UNKNOWN", Severity: "error", Actions: []string{}, Details: []ParsedDetail{}}
	if c, ok := attrs.get("code"); ok && c != "" {
		t.Code = c
	}
	if sev, ok := attrs.get("severity"); ok && sev != "" {
		t.Severity = sev
	}
	haveMessage := false
	var detailAt map[string]int // a detail's index by key, once there are many
	legacyActions := ""
	haveLegacy := false
	sawAction := false // an <action> element, even an empty one
	for name, tagAttrs, ok := s.next(); ok; name, tagAttrs, ok = s.next() {
		switch name {
		case "message", "recovery", "retry_after", "action", "detail":
			raw, ok := s.element(name)
			if !ok {
				continue
			}
			switch name {
			case "message":
				if !haveMessage {
					t.Message, haveMessage = text(raw), true
				}
			case "recovery":
				if t.Recovery == nil {
					r := text(raw)
					t.Recovery = &r
				}
			case "retry_after":
				if t.RetryAfter == nil {
					t.RetryAfter = parseSeconds(text(raw))
				}
			case "action":
				sawAction = true
				if a := text(raw); a != "" {
					t.Actions = append(t.Actions, a)
				}
			case "detail":
				key := tagAttrs.value("key")
				t.Details = setDetail(t.Details, &detailAt, key, text(raw))
			}
		case "available_actions":
			// Scanning on inside the block finds its <action> elements;
			// its raw text is kept for the legacy comma-separated form.
			if !haveLegacy {
				save := s.pos
				if raw, ok := s.element("available_actions"); ok {
					legacyActions, haveLegacy = raw, true
				}
				s.pos = save
			}
		}
	}
	if !haveMessage {
		return nil
	}
	// The legacy comma-separated form is a block without <action>
	// elements: a block of empty ones is no list, not its own markup.
	if len(t.Actions) == 0 && haveLegacy && !sawAction {
		for _, part := range strings.Split(legacyActions, ",") {
			if a := text(part); a != "" {
				t.Actions = append(t.Actions, a)
			}
		}
	}
	return t
}

// setDetail keeps the first position of a key and its last value, as a
// JavaScript object does. From manyAttrs details on, *at finds a key's
// position, so that many details cost one pass, not one per detail.
func setDetail(details []ParsedDetail, at *map[string]int, key, value string) []ParsedDetail {
	if *at == nil && len(details) >= manyAttrs {
		*at = make(map[string]int, 2*len(details))
		for i, d := range details {
			(*at)[d.Key] = i
		}
	}
	if *at != nil {
		if i, ok := (*at)[key]; ok {
			details[i].Value = value
			return details
		}
		(*at)[key] = len(details)
		return append(details, ParsedDetail{key, value})
	}
	for i := range details {
		if details[i].Key == key {
			details[i].Value = value
			return details
		}
	}
	return append(details, ParsedDetail{key, value})
}

// parseSeconds reads "N seconds" (or a bare N) into a finite number.
func parseSeconds(s string) *float64 {
	s = strings.TrimSpace(strings.TrimSuffix(s, "seconds"))
	if s == "" || strings.ContainsAny(s, "_xXpP") {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return nil
	}
	return &f
}

// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func (s *scanner) validation(attrs attrList) *ParsedValidation {
	v := &ParsedValidation{Action: attrs.value("action"), Fields: []ParsedField{}}
	for name, tagAttrs, ok := s.next(); ok; name, tagAttrs, ok = s.next() {
		switch name {
		case "field":
			if raw, ok := s.element("field"); ok {
				v.Fields = append(v.Fields, ParsedField{Name: tagAttrs.value("name"), Message: text(raw)})
			}
		case "recovery":
			if raw, ok := s.element("recovery"); ok && v.Recovery == nil {
				r := text(raw)
				v.Recovery = &r
			}
		case "contract_awareness":
			if raw, ok := s.element("contract_awareness"); ok && v.Contract == nil {
				v.Contract = parseContract(raw)
			}
		}
	}
	return v
}

func parseContract(body string) *ParsedContract {
	c := &ParsedContract{Changes: []ParsedChange{}}
	s := scanner{body: body}
	var cur *ParsedChange
	for name, tagAttrs, ok := s.next(); ok; name, tagAttrs, ok = s.next() {
		if name == "change" {
			c.Changes = append(c.Changes, ParsedChange{Severity: tagAttrs.value("severity"), Field: tagAttrs.value("field")})
			cur = &c.Changes[len(c.Changes)-1]
			continue
		}
		switch name {
		case "system_note", "action", "change_count", "max_severity", "description", "before", "after":
		default:
			continue
		}
		raw, ok := s.element(name)
		if !ok {
			continue
		}
		value := text(raw)
		switch name {
		case "system_note":
			const open, close = `tool "`, `" has changed`
			if i := strings.Index(value, open); i >= 0 {
				if j := strings.LastIndex(value, close); j >= i+len(open) {
					c.Tool = value[i+len(open) : j]
				}
			}
		case "action":
			c.Action = value
		case "change_count":
			c.ChangeCount, _ = strconv.ParseInt(value, 10, 64) // 64 bits where int is 32 (TinyGo)
		case "max_severity":
			c.MaxSeverity = value
		case "description":
			if cur != nil {
				cur.Description = value
			}
		case "before":
			if cur != nil {
				cur.Before = &value
			}
		case "after":
			if cur != nil {
				cur.After = &value
			}
		}
	}
	return c
}

// decodeEntities replaces the five XML entities and numeric character
// references in one pass (so "&amp;lt;" gives "&lt;"). Unknown entities stay
// as they are; a reference to a character XML forbids gives U+FFFD.
func decodeEntities(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c == '&' {
			if semi := strings.IndexByte(s[i:min(len(s), i+12)], ';'); semi >= 0 {
				if r, ok := entity(s[i+1 : i+semi]); ok {
					b = utf8.AppendRune(b, r)
					i += semi + 1
					continue
				}
			}
		}
		b = append(b, c)
		i++
	}
	return string(b)
}

// predefined are the five entities XML predefines, each with the character
// it stands for.
var predefined = [...]struct {
	name string
	char rune
}{{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}}

// entity returns the character the entity named ent (between '&' and ';')
// stands for: one of the five XML predefines, or a numeric character
// reference.
func entity(ent string) (rune, bool) {
	for _, p := range predefined {
		if ent == p.name {
			return p.char, true
		}
	}
	return numericReference(ent)
}

func numericReference(ent string) (rune, bool) {
	if len(ent) < 2 || ent[0] != '#' {
		return 0, false
	}
	digits, base := ent[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	if digits == "" || len(digits) > 8 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		isDigit := c >= '0' && c <= '9'
		isHex := (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
		if !isDigit && !(base == 16 && isHex) {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n > utf8.MaxRune || xmlesc.Forbidden(rune(n)) {
		return utf8.RuneError, true
	}
	return rune(n), true
}

// trimJS trims what JavaScript's String.prototype.trim trims.
func trimJS(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

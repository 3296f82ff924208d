package relay

import (
	"encoding/json"
	"strings"
)

// scanMessage reads the top-level members of a JSON-RPC message without
// decoding the rest: the relay routes on them and forwards the bytes.
// It reports false for a text that is not one JSON object (it checks the
// structure the relay relies on: balanced brackets, closed strings,
// members as "key": value; the values themselves are left to whoever reads
// them). A member given twice keeps its last value, as the SDKs read it.
func scanMessage(msg []byte, m *message) bool {
	*m = message{}
	return scanObject(msg, func(key string, value json.RawMessage) bool {
		switch key {
		case "id":
			m.ID = value
		case "method":
			method, ok := stringValue(value)
			if !ok {
				return false
			}
			m.Method = &method
		case "params":
			m.Params = value
		case "result":
			m.Result = value
		case "error":
			m.Error = value
		}
		return true
	})
}

// scanObject calls member for each member of the JSON object b, with the
// key (escapes decoded) and the value's bytes; false when b is not an
// object or member says so.
func scanObject(b []byte, member func(key string, value json.RawMessage) bool) bool {
	whole, _ := scanMembers(b, member)
	return whole
}

// scanMembers is scanObject that also names, when b stops inside a
// member's value (a message cut short), that member: cut.
func scanMembers(b []byte, member func(key string, value json.RawMessage) bool) (whole bool, cut string) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, ""
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b), ""
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false, ""
		}
		keyEnd, ok := skipString(b, i)
		if !ok {
			return false, ""
		}
		key := string(b[i+1 : keyEnd-1])
		if strings.IndexByte(key, '\\') >= 0 {
			// A name spelled with escapes is the name they spell, as every
			// JSON reader reads it: read raw, "m\u0065thod" would hide a
			// call from the relay, or a server's second "result" from it.
			if key, ok = stringValue(b[i:keyEnd]); !ok {
				return false, ""
			}
		}
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return false, ""
		}
		i = skipSpace(b, i+1)
		end, ok := skipValue(b, i)
		if !ok {
			return false, key
		}
		if !member(key, json.RawMessage(b[i:end])) {
			return false, ""
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return false, ""
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b), ""
		}
		if b[i] != ',' {
			return false, ""
		}
		i = skipSpace(b, i+1)
	}
}

// member returns the value of obj's member named name (the last, if it
// is given twice), read as the SDKs read names; false when obj is not an
// object or has no such member.
func member(obj []byte, name string) (json.RawMessage, bool) {
	var v json.RawMessage
	if !scanObject(obj, func(key string, value json.RawMessage) bool {
		if key == name {
			v = value
		}
		return true
	}) || v == nil {
		return nil, false
	}
	return v, true
}

// stringMember is member's value when it is a string, decoded.
func stringMember(obj []byte, name string) (string, bool) {
	v, ok := member(obj, name)
	if !ok {
		return "", false
	}
	return stringValue(v)
}

// protocolVersionKey is the member of _meta by which a request of the
// stateless protocol (MCP 2026-07-28 and later) names its version.
const protocolVersionKey = "io.modelcontextprotocol/protocolVersion"

// versionIn is the protocol version meta, a request's _meta, names (a
// string), as the module's gate reads it; false when it names none.
func versionIn(meta []byte) (string, bool) {
	return stringMember(meta, protocolVersionKey)
}

// The kinds of message cutMessage tells apart.
const (
	cutOther   = iota // a notification, or a message it cannot read
	cutAnswer         // a response
	cutRequest        // a request
)

// cutMessage reads what a message cut short by the transport's limit
// shows of itself: head is its first bytes, tail (when known) its last.
// It is a request when the head holds a whole "method" member, an answer
// when it holds a "result" or "error" member, whole or cut, and no
// "method". Its id is the last member when the tail ends the object with
// "id" and a number or string (the TypeScript SDK writes the id last),
// else an "id" member whole in the head (the Go and Python SDKs write it
// first), when it is a number or a string; nil when neither shows one (a
// request without one is a notification).
func cutMessage(head, tail []byte) (id json.RawMessage, kind int) {
	method, result := false, false
	whole, cut := scanMembers(head, func(key string, value json.RawMessage) bool {
		switch key {
		case "id":
			id = value
		case "method":
			method = true
		case "result", "error":
			result = true
		}
		return true
	})
	switch {
	case whole:
		return nil, cutOther
	case method:
		kind = cutRequest
	case result || cut == "result" || cut == "error":
		kind = cutAnswer
	default:
		return nil, cutOther
	}
	if last, ok := lastID(tail); ok {
		id = last
	} else if id != nil && !(json.Valid(id) && strings.IndexByte(`"-0123456789`, id[0]) >= 0) {
		id = nil // the head's scan skips a value without reading it
	}
	if kind == cutRequest && id == nil {
		return nil, cutOther
	}
	return id, kind
}

// lastID reads, from the last bytes of a JSON object, its last member
// when that is "id" with a number or a string: the value just before the
// object's closing brace belongs to one of its own members, so a scalar
// there, its name and the comma before it are read backwards.
func lastID(tail []byte) (json.RawMessage, bool) {
	end := skipSpaceBack(tail, len(tail))
	if end == 0 || tail[end-1] != '}' {
		return nil, false
	}
	vEnd := skipSpaceBack(tail, end-1)
	vStart, ok := stringStart(tail, vEnd)
	if !ok { // a number
		for vStart = vEnd; vStart > 0 && strings.IndexByte("0123456789+-.eE", tail[vStart-1]) >= 0; vStart-- {
		}
	}
	colon := skipSpaceBack(tail, vStart)
	if vStart == vEnd || colon == 0 || tail[colon-1] != ':' {
		return nil, false
	}
	kEnd := skipSpaceBack(tail, colon-1)
	kStart, ok := stringStart(tail, kEnd)
	if !ok {
		return nil, false
	}
	comma := skipSpaceBack(tail, kStart)
	if comma == 0 || tail[comma-1] != ',' {
		return nil, false
	}
	value := tail[vStart:vEnd]
	if key, ok := stringValue(tail[kStart:kEnd]); !ok || key != "id" || !json.Valid(value) {
		return nil, false
	}
	return json.RawMessage(value), true
}

// stringStart returns where the string that ends at b[end-1] starts: the
// nearest quote before it that no backslash escapes.
func stringStart(b []byte, end int) (int, bool) {
	if end < 2 || b[end-1] != '"' {
		return end, false
	}
	for j := end - 2; j >= 0; j-- {
		if b[j] != '"' {
			continue
		}
		k := j
		for k > 0 && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j, true
		}
	}
	return end, false
}

func skipSpaceBack(b []byte, i int) int {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t' || b[i-1] == '\n' || b[i-1] == '\r') {
		i--
	}
	return i
}

// stringValue decodes a JSON string; false for another value.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	plain := true
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i].
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the offset after the value starting at b[i]: a string,
// an object or array (brackets balanced, strings skipped), or a literal.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}

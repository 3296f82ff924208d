package main

import (
	"encoding/json"
	"fmt"
	"html"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Measure is what one text says about one case.
type Measure struct {
	Named      bool     // every path of the mistake is named in full
	Stated     bool     // every fact of the constraint is stated
	Claims     int      // "You sent" statements
	False      []string // the ones that are not what was sent, each with its field
	Tokens     int      // o200k_base tokens of the whole text
	Unanswered bool     // no text at all
}

// measureText measures text against c.
func measureText(c Case, text string) Measure {
	plain := readable(text)
	m := Measure{Tokens: tokens(text), Unanswered: strings.TrimSpace(text) == ""}
	m.Named = true
	for _, p := range c.Want.Paths {
		if !named(plain, p) {
			m.Named = false
		}
	}
	m.Stated = true
	for _, alt := range c.Want.Constraint {
		if !stated(plain, alt) {
			m.Stated = false
		}
	}
	m.Claims, m.False = sentClaims(text, c.Args)
	return m
}

// readable is text as a reader takes it in: entities decoded, and a second
// form with Go's doubled backslashes undone (the Go SDK quotes patterns).
func readable(text string) string {
	t := html.UnescapeString(text)
	return t + "\n" + strings.ReplaceAll(t, `\\`, `\`)
}

// named reports whether text names path in full, in any of the usual
// notations: a.0.b, a[0].b, /a/0/b, ["a",0,"b"].
func named(text string, path []any) bool {
	if len(path) == 1 {
		return word(text, fmt.Sprint(path[0]))
	}
	var dotted, bracket, pointer []string
	for i, seg := range path {
		s := fmt.Sprint(seg)
		dotted = append(dotted, s)
		pointer = append(pointer, s)
		if _, isIndex := seg.(int); isIndex {
			bracket = append(bracket, "["+s+"]")
		} else if i == 0 {
			bracket = append(bracket, s)
		} else {
			bracket = append(bracket, "."+s)
		}
	}
	jsonPath, _ := json.Marshal(path)
	spaced := strings.ReplaceAll(string(jsonPath), ",", ", ")
	for _, form := range []string{strings.Join(dotted, "."), strings.Join(bracket, ""), "/" + strings.Join(pointer, "/"), string(jsonPath), spaced} {
		if strings.Contains(text, form) {
			return true
		}
	}
	return false
}

// word reports whether w occurs in text not as a part of a longer name.
func word(text, w string) bool {
	return occurs(text, w, func(start, end int) bool {
		return (start == 0 || !nameByte(text[start-1])) && (end == len(text) || !nameByte(text[end]))
	})
}

// occurs reports whether s occurs in text at a place (its start and end)
// that alone accepts.
func occurs(text, s string, alone func(start, end int) bool) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		if alone(i+j, i+j+len(s)) {
			return true
		}
		i += j + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func stated(text string, alt Alt) bool {
	for _, s := range alt.Spellings {
		t := text
		if alt.Fold {
			t, s = strings.ToLower(t), strings.ToLower(s)
		}
		if alt.Number {
			if numberIn(t, s) {
				return true
			}
			continue
		}
		if alt.Fold || alt.Word {
			if word(t, s) {
				return true
			}
			continue
		}
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// numberIn reports whether n occurs in text not as a part of a longer
// number (a full stop after it may end a sentence).
func numberIn(text, n string) bool {
	digit := func(b byte) bool { return b >= '0' && b <= '9' || b == '.' }
	return occurs(text, n, func(start, end int) bool {
		return (start == 0 || !digit(text[start-1])) && (end == len(text) || !digit(text[end]) || text[end] == '.' && (end+1 == len(text) || !digit(text[end+1])))
	})
}

var fieldRE = regexp.MustCompile(`(?s)<field name="([^"]*)">(.*?)</field>`)

// sentClaims checks every "You sent: X." of a <validation_error> against the
// arguments at that field's path. It returns how many there were and the
// false ones.
func sentClaims(text string, args any) (int, []string) {
	var claims int
	var wrong []string
	for _, f := range fieldRE.FindAllStringSubmatch(text, -1) {
		name, content := html.UnescapeString(f[1]), html.UnescapeString(f[2])
		i := strings.Index(content, "You sent: ")
		if i < 0 {
			continue
		}
		claims++
		claim := content[i+len("You sent: "):]
		var path []string
		if name != "(root)" && name != "" {
			path = strings.Split(name, ".")
		}
		v, present := at(args, path)
		if !present && insideValue(args, path) {
			// A path that goes on past a value (a union member's tag): the
			// model sent that value there.
			v, present = valueOnPath(args, path), true
		}
		if !claimTrue(claim, v, present) {
			wrong = append(wrong, fmt.Sprintf("%s: You sent: %s", name, cut(claim, 80)))
		}
	}
	return claims, wrong
}

// at is the value at path in v (object keys, array indexes).
func at(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// valueOnPath is the deepest value that path reaches in args.
func valueOnPath(args any, path []string) any {
	for i := len(path) - 1; i > 0; i-- {
		if v, ok := at(args, path[:i]); ok {
			return v
		}
	}
	return args
}

// insideValue reports whether path goes through a value that is neither an
// object nor an array: a path that names no place in the arguments (as
// pydantic's union tags do, freshness.literal['pd']), where the model did
// send something.
func insideValue(args any, path []string) bool {
	for i := len(path) - 1; i > 0; i-- {
		if v, ok := at(args, path[:i]); ok {
			switch v.(type) {
			case map[string]any, []any:
				return false
			}
			return true
		}
	}
	return false
}

var (
	quotedListRE = regexp.MustCompile(`^'[^']*'(?:, '[^']*')*`)
	numberRE     = regexp.MustCompile(`^-?[0-9][0-9.e+\-]*`)
	arrayLenRE   = regexp.MustCompile(`^array\((\d+)\)`)
	keyValueRE   = regexp.MustCompile(`^('[^']*'|"[^"]*"|[A-Za-z_$][\w$-]*): `)
)

// claimTrue reports whether claim (the text after "You sent: ") starts with
// a true statement of v, followed by a full stop. True statements: what the
// contract renders for the value (a string quoted, cut with "..." past 50
// characters; a number; true/false; null; array(N); an object's compact
// JSON, cut), "(missing)" when nothing was sent there, and, for an object,
// the quoted names of some of its keys.
func claimTrue(claim string, v any, present bool) bool {
	ends := func(n int) bool { return n <= len(claim) && (n == len(claim) || claim[n] == '.') }
	switch {
	case strings.HasPrefix(claim, "(missing)"):
		return !present && ends(len("(missing)"))
	case !present:
		return false
	case strings.HasPrefix(claim, "null"):
		return v == nil && ends(4)
	case strings.HasPrefix(claim, "true"), strings.HasPrefix(claim, "false"):
		b, ok := v.(bool)
		word := "false"
		if b {
			word = "true"
		}
		return ok && strings.HasPrefix(claim, word) && ends(len(word))
	case arrayLenRE.MatchString(claim):
		m := arrayLenRE.FindStringSubmatch(claim)
		list, ok := v.([]any)
		return ok && m[1] == strconv.Itoa(len(list)) && ends(len(m[0]))
	case keyValueRE.MatchString(claim) && isObject(v):
		// name: VALUE, for an object: one of its keys and what it holds.
		m := keyValueRE.FindStringSubmatch(claim)
		obj, ok := v.(map[string]any)
		e, has := obj[strings.Trim(m[1], "'\"")]
		return ok && has && claimTrue(claim[len(m[0]):], e, true)
	case strings.HasPrefix(claim, "'"):
		if obj, ok := v.(map[string]any); ok {
			list := quotedListRE.FindString(claim)
			for _, q := range strings.Split(list, ", ") {
				if _, has := obj[strings.Trim(q, "'")]; !has {
					return false
				}
			}
			return list != "" && ends(len(list))
		}
		s, ok := v.(string)
		if !ok {
			return false
		}
		if strings.HasPrefix(claim, "'"+s+"'") && ends(len(s)+2) {
			return true
		}
		// Cut: the first characters, then "...'".
		end := strings.Index(claim, "...'")
		return end > 1 && strings.HasPrefix(s, claim[1:end]) && ends(end+4)
	case strings.HasPrefix(claim, "{") && someMembers(claim, v):
		// Some members of an object, whole (the unknown keys of one).
		return true
	case strings.HasPrefix(claim, "{"), strings.HasPrefix(claim, "["):
		full := encode(v)
		n := 0
		for n < len(full) && n < len(claim) && full[n] == claim[n] {
			n++
		}
		return (n == len(full) || n >= 40) && ends(n)
	case numberRE.MatchString(claim):
		lit := strings.TrimSuffix(numberRE.FindString(claim), ".")
		got, err1 := strconv.ParseFloat(lit, 64)
		want, ok := number(v)
		return err1 == nil && ok && got == want && ends(len(lit))
	}
	return false
}

// someMembers reports whether claim starts with a whole JSON object, then a
// full stop, each of whose members v (an object) holds with the same value.
func someMembers(claim string, v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(claim))
	var part map[string]any
	if dec.Decode(&part) != nil || len(part) == 0 {
		return false
	}
	if n := int(dec.InputOffset()); n < len(claim) && claim[n] != '.' {
		return false
	}
	for k, e := range part {
		if sent, has := obj[k]; !has || !sameJSON(sent, e) {
			return false
		}
	}
	return true
}

// sameJSON reports whether a and b are the same JSON value, however their
// numbers were decoded.
func sameJSON(a, b any) bool {
	var x, y any
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && json.Unmarshal(ja, &x) == nil && json.Unmarshal(jb, &y) == nil &&
		reflect.DeepEqual(x, y)
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

var (
	tokenizerOnce sync.Once
	tokenizer     *tiktoken.Tiktoken
)

// tokens counts text in o200k_base, the tokenizer of OpenAI's GPT-4o and
// later models (its ranks are embedded in tiktoken-go-loader; nothing is
// downloaded).
func tokens(text string) int {
	tokenizerOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		var err error
		tokenizer, err = tiktoken.GetEncoding("o200k_base")
		if err != nil {
			panic(fmt.Sprintf("o200k_base: %v", err)) // embedded data: never expected
		}
	})
	return len(tokenizer.Encode(text, nil, nil))
}

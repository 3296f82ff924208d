package main

import (
	"regexp"
	"strings"
)

// Generate writes a short string that a pattern matches, as a model would
// from a pattern in a text: for each part the first thing it allows (the
// first alternative, a class's first character, a quantifier's minimum).
// It reads the common subset (literals, escapes, classes, groups,
// alternation, quantifiers, anchors) and reports ok false for what it does
// not, or when the result does not match.
func Generate(pattern string) (string, bool) {
	g := &gen{src: []rune(pattern)}
	out, ok := g.alternation()
	if !ok || g.pos != len(g.src) {
		return "", false
	}
	if re, err := regexp.Compile(pattern); err == nil && !re.MatchString(out) {
		return "", false
	}
	return out, true
}

type gen struct {
	src []rune
	pos int
}

func (g *gen) peek() rune {
	if g.pos < len(g.src) {
		return g.src[g.pos]
	}
	return 0
}

// alternation: the first branch is the string; the others are parsed and
// dropped.
func (g *gen) alternation() (string, bool) {
	first, ok := g.sequence()
	if !ok {
		return "", false
	}
	for g.peek() == '|' {
		g.pos++
		if _, ok := g.sequence(); !ok {
			return "", false
		}
	}
	return first, true
}

func (g *gen) sequence() (string, bool) {
	var b strings.Builder
	for g.pos < len(g.src) {
		c := g.peek()
		if c == '|' || c == ')' {
			break
		}
		atom, ok := g.atom()
		if !ok {
			return "", false
		}
		n, ok := g.quantifier()
		if !ok {
			return "", false
		}
		b.WriteString(strings.Repeat(atom, n))
	}
	return b.String(), true
}

func (g *gen) atom() (string, bool) {
	c := g.src[g.pos]
	g.pos++
	switch c {
	case '^', '$':
		return "", true
	case '.':
		return "a", true
	case '(':
		if strings.HasPrefix(string(g.src[g.pos:]), "?:") {
			g.pos += 2
		} else if g.peek() == '?' {
			return "", false // lookarounds and named groups
		}
		s, ok := g.alternation()
		if !ok || g.peek() != ')' {
			return "", false
		}
		g.pos++
		return s, true
	case '[':
		return g.class()
	case '\\':
		return g.escape(false)
	}
	return string(c), true
}

func (g *gen) escape(inClass bool) (string, bool) {
	if g.pos >= len(g.src) {
		return "", false
	}
	c := g.src[g.pos]
	g.pos++
	switch c {
	case 'd':
		return "0", true
	case 'w':
		return "a", true
	case 's':
		return " ", true
	case 'D', 'W', 'S', 'b', 'B':
		if c == 'b' || c == 'B' {
			return "", !inClass
		}
		return "-", true
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	}
	return string(c), true
}

// class: the first character it allows; for a negated class, a letter or
// digit it does not name.
func (g *gen) class() (string, bool) {
	negated := g.peek() == '^'
	if negated {
		g.pos++
	}
	var first string
	var members []string
	for i := 0; g.pos < len(g.src); i++ {
		c := g.src[g.pos]
		if c == ']' && i > 0 {
			g.pos++
			if negated {
				for _, cand := range []string{"a", "z", "0", "A", "_"} {
					if !strings.Contains(strings.Join(members, ""), cand) {
						return cand, true
					}
				}
				return "", false
			}
			return first, first != ""
		}
		g.pos++
		var s string
		if c == '\\' {
			var ok bool
			if s, ok = g.escape(true); !ok {
				return "", false
			}
		} else {
			s = string(c)
		}
		if g.peek() == '-' && g.pos+1 < len(g.src) && g.src[g.pos+1] != ']' {
			g.pos += 2 // a range: its first character stands for it
			if g.src[g.pos-1] == '\\' {
				g.pos++
			}
			if lo := []rune(s); len(lo) == 1 {
				hi := g.src[g.pos-1]
				for r := lo[0]; r <= hi; r++ {
					members = append(members, string(r))
				}
			}
		} else {
			members = append(members, s)
		}
		if first == "" {
			first = s
		}
	}
	return "", false
}

// quantifier: how many times the atom is written (the minimum, one for +).
func (g *gen) quantifier() (int, bool) {
	n := 1
	switch g.peek() {
	case '?', '*':
		n = 0
		g.pos++
	case '+':
		g.pos++
	case '{':
		end := strings.IndexRune(string(g.src[g.pos:]), '}')
		if end < 0 {
			return 0, false
		}
		body := string(g.src[g.pos+1 : g.pos+len([]rune(string(g.src[g.pos:])[:end]))])
		g.pos += len([]rune(string(g.src[g.pos:])[:end])) + 1
		lo := strings.SplitN(body, ",", 2)[0]
		n = 0
		for _, d := range lo {
			if d < '0' || d > '9' {
				return 0, false
			}
			n = n*10 + int(d-'0')
		}
		if n == 0 && lo == "" {
			return 0, false
		}
	default:
		return 1, true
	}
	if g.peek() == '?' || g.peek() == '+' { // lazy or possessive
		g.pos++
	}
	return n, true
}

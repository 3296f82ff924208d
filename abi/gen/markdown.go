package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// The tables of abi/ABI.md that the generator writes, each between the
// lines <!-- abi/gen: NAME --> and <!-- abi/gen: end NAME -->; the prose
// around them is written by hand.
const abiDoc = "abi/ABI.md"

func emitMarkdown(s *Spec) ([]output, error) {
	doc, err := os.ReadFile(abiDoc)
	if err != nil {
		return nil, err
	}
	tables := map[string]string{
		"exports":  s.exportsTable(),
		"requests": s.requestsTable(),
		"errors":   s.errorsTable(),
		"limits":   s.limitsTable(),
		"policy":   s.policyTable(),
	}
	text := string(doc)
	for _, name := range []string{"exports", "requests", "errors", "limits", "policy"} {
		begin := "<!-- abi/gen: " + name + " -->\n"
		end := "<!-- abi/gen: end " + name + " -->\n"
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			return nil, fmt.Errorf("%s: no %q ... %q region", abiDoc, strings.TrimSpace(begin), strings.TrimSpace(end))
		}
		text = text[:i+len(begin)] + tables[name] + text[j:]
	}
	return []output{{abiDoc, []byte(text)}}, nil
}

// row writes one row of a table; an empty cell is written "| |".
func row(b *bytes.Buffer, cells ...string) {
	for _, c := range cells {
		if c == "" {
			b.WriteString("| ")
		} else {
			b.WriteString("| " + c + " ")
		}
	}
	b.WriteString("|\n")
}

func (s *Spec) exportsTable() string {
	var b bytes.Buffer
	b.WriteString("| export | added in | request | response |\n|---|---|---|---|\n")
	for _, e := range s.Exports {
		req := e.RequestText
		if req == "" {
			req = requestShape(s.typ(e.Request))
		}
		row(&b, "`"+e.Name+"`", e.AddedIn, req, e.ResponseText)
	}
	return b.String()
}

// requestShape writes a request as `{a, b?}`, or `{a, b} or {a, c}` when
// some of its fields are alternatives.
func requestShape(t *Type) string {
	var common []string
	var alternatives []string
	for _, f := range t.Fields {
		switch {
		case f.OneOf != "":
			alternatives = append(alternatives, f.Name)
		case f.Required:
			common = append(common, f.Name)
		default:
			common = append(common, f.Name+"?")
		}
	}
	if len(alternatives) == 0 {
		return "`{" + strings.Join(common, ", ") + "}`"
	}
	shapes := make([]string, len(alternatives))
	for i, a := range alternatives {
		shapes[i] = "`{" + strings.Join(append(append([]string{}, common...), a), ", ") + "}`"
	}
	return strings.Join(shapes, " or ")
}

func (s *Spec) requestsTable() string {
	var b bytes.Buffer
	b.WriteString("| request | field | type | required | rule |\n|---|---|---|---|---|\n")
	rows := func(title string, t *Type) {
		for i, f := range t.Fields {
			if i > 0 {
				title = ""
			}
			required := "no"
			switch {
			case f.OneOf != "":
				required = "one of"
			case f.Required:
				required = "yes"
			}
			row(&b, title, "`"+f.Name+"`", s.docType(f), required, f.Rule)
		}
	}
	for _, e := range s.Exports {
		if e.Request != "" && e.RequestText == "" {
			rows("`"+e.Name+"`", s.typ(e.Request))
		}
	}
	rows("`contract`", s.typ("Contract"))
	rows("`contract.deltas[]`", s.typ("Delta"))
	return b.String()
}

// docType is a field's type as the tables write it.
func (s *Spec) docType(f *Field) string {
	base, list := strings.CutSuffix(f.Type, "[]")
	t := base
	switch {
	case base == "json":
		t = "any JSON"
	case base == "details":
		t = "object"
	case s.Enums[base] != nil:
		t = "string"
	case s.typ(base) != nil:
		t = "object (" + base + ")"
	}
	if list {
		t = "array of " + t
	}
	if f.Nullable {
		t += " or null"
	}
	return t
}

func (s *Spec) errorsTable() string {
	var rows [][]string
	for _, e := range s.Errors {
		rows = append(rows, []string{"`" + e.Code + "`", e.RaisedBy, e.Doc})
	}
	return table([]string{"code", "raised by", "meaning"}, rows)
}

func (s *Spec) limitsTable() string {
	var rows [][]string
	for _, l := range s.Limits {
		rows = append(rows, []string{"`" + l.Name + "`", l.Shown, l.EnforcedBy})
	}
	return table([]string{"limit", "value", "enforced by"}, rows)
}

func (s *Spec) policyTable() string {
	var rows [][]string
	for _, p := range s.Policy {
		name, def := "", ""
		if p.Name != "" {
			name, def = "`"+p.Name+"`", fmt.Sprint(*p.Default)
		}
		rows = append(rows, []string{p.Rule, name, def, p.Text})
	}
	return table([]string{"rule", "name", "default", "every host"}, rows)
}

// table writes a markdown table of a header and rows.
func table(header []string, rows [][]string) string {
	var b bytes.Buffer
	row(&b, header...)
	b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
	for _, r := range rows {
		row(&b, r...)
	}
	return b.String()
}

package core

import (
	"strings"
	"testing"
)

var sinkV []Value
var sinkB []byte
var sinkS string

func BenchmarkMicroAllocChunk(b *testing.B) {
	for b.Loop() {
		sinkV = make([]Value, 0, 64)
	}
}
func BenchmarkMicroAlloc256(b *testing.B) {
	for b.Loop() {
		sinkB = make([]byte, 0, 256)
	}
}
func BenchmarkMicroParseJSON(b *testing.B) {
	req := []byte(`{"text":"a","context":"content"}`)
	for b.Loop() {
		v, _ := ParseJSON(req, 64)
		_ = v
	}
}
func BenchmarkMicroEscape(b *testing.B) {
	for b.Loop() {
		sinkS = EscapeContent("Invoice inv_2026_9999 not found")
	}
}
func BenchmarkMicroMap(b *testing.B) {
	for b.Loop() {
		_ = exports["tool_error"]
	}
}
func BenchmarkMicroFormatNumber(b *testing.B) {
	for b.Loop() {
		sinkS = FormatNumber(3)
	}
}
func BenchmarkMicroParseNum(b *testing.B) {
	req := []byte(`{"a":3}`)
	for b.Loop() {
		v, _ := ParseJSON(req, 64)
		_ = v
	}
}
func BenchmarkMicroParseStr(b *testing.B) {
	req := []byte(`{"a":"3"}`)
	for b.Loop() {
		v, _ := ParseJSON(req, 64)
		_ = v
	}
}
func BenchmarkStage(b *testing.B) {
	req := benchReq(b, "tool_error")
	c := new(call)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			c.decode("tool_error", req, "code", "message", "suggestion", "availableActions", "severity", "details", "retryAfter")
		}
	})
	r, _ := c.decode("tool_error", req, "code", "message", "suggestion", "availableActions", "severity", "details", "retryAfter")
	b.Run("toolError", func(b *testing.B) {
		for b.Loop() {
			r.toolError(&ToolError{})
		}
	})
	t := &ToolError{}
	r.toolError(t)
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			c.scratch = appendToolError(c.scratch[:0], t)
		}
	})
	text := RenderToolError(t)
	b.Run("result", func(b *testing.B) {
		for b.Loop() {
			c.out = c.out[:0]
			c.toolResult(text, true)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			c.out = c.out[:0]
			callToolError(c, req)
		}
	})
}
func BenchmarkDec(b *testing.B) {
	req := benchReq(b, "tool_error")
	var d decoder
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			d.parse(req, 256, 200000)
		}
	})
	b.Run("skip", func(b *testing.B) {
		for b.Loop() {
			d.data = req
			d.pos = 0
			for d.pos < len(d.data) {
				d.skipSpace()
				d.pos++
			}
		}
	})
	b.Run("strs", func(b *testing.B) {
		for b.Loop() {
			d.strs = make([]byte, 0, len(req))
		}
	})
	b.Run("str", func(b *testing.B) {
		s := []byte(`"Call billing.list_invoices to find a valid ID, then retry."`)
		d.strs = make([]byte, 0, 1<<20)
		for b.Loop() {
			d.data = s
			d.pos = 0
			d.strs = d.strs[:0]
			d.str()
		}
	})
}
func BenchmarkFVStage(b *testing.B) {
	req := benchReq(b, "format_validation")
	c := new(call)
	fields := []string{"action", "issues", "args", "dialect", "contract", "schema"}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			c.decode("format_validation", req, fields...)
		}
	})
	r, _ := c.decode("format_validation", req, fields...)
	items := r.obj.Get("issues").Arr
	args := r.obj.Get("args")
	b.Run("issues", func(b *testing.B) {
		for b.Loop() {
			c.issues = c.issues[:0]
			for _, it := range items {
				c.issues = append(c.issues, ZodIssue(it))
			}
		}
	})
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			c.scratch = appendValidationError(c.scratch[:0], &c.line, "users.create", c.issues, args, nil)
		}
	})
	b.Run("result", func(b *testing.B) {
		for b.Loop() {
			c.out = c.out[:0]
			c.toolResult(c.scratchText(), true)
		}
	})
}
func BenchmarkShape(b *testing.B) {
	shapes := map[string]string{
		"strmembers": `{"aaaa":"bbbbbbbbbbbb","cccc":"dddddddddddd","eeee":"ffffffffffff","gggg":"hhhhhhhhhhhh"}`,
		"nummembers": `{"aaaa":1234,"cccc":5678,"eeee":9012,"gggg":3456}`,
		"strarray":   `["bbbbbbbbbbbb","dddddddddddd","ffffffffffff","hhhhhhhhhhhh"]`,
		"nested":     `[{"a":"b"},{"a":"b"},{"a":"b"},{"a":"b"}]`,
		"literals":   `[true,false,null,true]`,
	}
	var d decoder
	for name, js := range shapes {
		data := []byte(js)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := d.parse(data, 64, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/byte")
		})
	}
}

var sinkI int

//go:noinline
func addOne(x int) int { return x + 1 }

func BenchmarkMicroLoop1000(b *testing.B) {
	data := make([]byte, 1000)
	for b.Loop() {
		s := 0
		for _, c := range data {
			s += int(c)
		}
		sinkI = s
	}
}
func BenchmarkMicroBranchy1000(b *testing.B) {
	data := []byte(strings.Repeat("ab\"c\\de<f", 100))
	for b.Loop() {
		s := 0
		for _, c := range data {
			switch c {
			case '"':
				s += 3
			case '\\':
				s += 5
			case '<':
				s += 7
			default:
				s++
			}
		}
		sinkI = s
	}
}
func BenchmarkMicroCall1000(b *testing.B) {
	for b.Loop() {
		s := 0
		for i := 0; i < 1000; i++ {
			s = addOne(s)
		}
		sinkI = s
	}
}

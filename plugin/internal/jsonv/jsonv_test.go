package jsonv

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func parse(t *testing.T, s string) *Value {
	t.Helper()
	v, err := ParseJSON([]byte(s), 256)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestIndex_AgreesWithScans checks the index against the scans it replaces:
// Get, LookupPath and LookupPointer, on small objects (scanned) and large
// ones (mapped), repeated keys, arrays and missing members.
func TestIndex_AgreesWithScans(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{`)
	for i := 0; i < 40; i++ {
		b.WriteString(`"k` + strconv.Itoa(i%30) + `":{"a":[10,{"b":` + strconv.Itoa(i) + `}],"c/d":1,"~e":2},`)
	}
	b.WriteString(`"":0}`)
	doc := parse(t, b.String())
	var idx Index
	for _, key := range []string{"k0", "k29", "k30", "", "nope"} {
		if got, want := idx.Get(doc, key), doc.Get(key); got != want {
			t.Errorf("Get(%q) = %p, want %p", key, got, want)
		}
	}
	for _, path := range []string{`["k3","a",1,"b"]`, `["k3","a","1","b"]`, `["k3","a",-0]`, `["k3","a","01"]`, `["k3","a",2]`, `[]`, `["nope"]`} {
		p := parse(t, path).Arr
		if got, want := idx.LookupPath(doc, p), LookupPath(doc, p); got != want {
			t.Errorf("LookupPath(%s) = %p, want %p", path, got, want)
		}
	}
	for _, ptr := range []string{"#/k7/c~1d", "/k7/~0e", "#/k7/a/1/b", "#/k7/a/5", "", "#"} {
		if got, want := idx.LookupPointer(doc, ptr), LookupPointer(doc, ptr); got != want {
			t.Errorf("LookupPointer(%q) = %p, want %p", ptr, got, want)
		}
	}
}

// TestAppendValuePrefix_IsAPrefix checks that the bounded writer writes a
// prefix of the whole JSON, at least limit bytes long unless it is all of
// it, for values of every kind, escapes and multi-byte text.
func TestAppendValuePrefix_IsAPrefix(t *testing.T) {
	values := []string{
		`{"a":"` + strings.Repeat(`é\u2028\"\\\u0001😀`, 40) + `","b":[1,2,{"c":null}],"d":true}`,
		`[` + strings.Repeat(`[],{},"",`, 50) + `0]`,
		`"` + strings.Repeat("日本", 100) + `"`,
		`{"` + strings.Repeat("k", 300) + `":1}`,
		`{"a":1}`, `[]`, `3.5`, `null`,
	}
	for _, text := range values {
		v := parse(t, text)
		whole := string(AppendValue(nil, v))
		for _, limit := range []int{0, 1, 7, 50, 154, 400, 10000} {
			got := string(AppendValuePrefix([]byte("x"), v, limit))[1:]
			if !strings.HasPrefix(whole, got) {
				t.Fatalf("limit %d: %q is not a prefix of %q", limit, got, whole)
			}
			if len(got) < limit && got != whole {
				t.Fatalf("limit %d: %d bytes, short of the limit and not all of %q", limit, len(got), whole)
			}
		}
	}
}

// TestOverflowing_FindsTheFirstInfinity pins the pointer Overflowing gives.
func TestOverflowing_FindsTheFirstInfinity(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"a":[1,{"b/c~":1e999}],"z":-1e999}`, "#/a/1/b~1c~0"},
		{`[1e308,-1e309]`, "#/1"},
		{`1e400`, "#"},
		{`{"a":1.7976931348623157e308,"b":[-0,1e-400]}`, ""},
	} {
		got, found := Overflowing(parse(t, tc.doc))
		if got != tc.want || found != (tc.want != "") {
			t.Errorf("Overflowing(%s) = %q %v, want %q", tc.doc, got, found, tc.want)
		}
	}
}

// TestIndex_RandomObjects compares Position with a scan on random objects.
func TestIndex_RandomObjects(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 50; round++ {
		n := r.Intn(30)
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + strconv.Itoa(r.Intn(20)) + `":` + strconv.Itoa(i))
		}
		b.WriteString("}")
		obj := parse(t, b.String())
		var idx Index
		for k := 0; k < 25; k++ {
			key := strconv.Itoa(k)
			want := -1
			for i, m := range obj.Members {
				if m.Key == key {
					want = i
					break
				}
			}
			if got := idx.Position(obj, key); got != want {
				t.Fatalf("%s: Position(%q) = %d, want %d", b.String(), key, got, want)
			}
		}
	}
}

// AppendNumber writes a number as ECMAScript's Number::toString does.
func TestAppendNumber(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {18, "18"},
		{1e15, "1000000000000000"}, {1<<53 - 1, "9007199254740991"}, {-(1<<53 - 1), "-9007199254740991"},
		{1 << 53, "9007199254740992"}, {1e20, "100000000000000000000"}, {1e21, "1e+21"},
		{0.5, "0.5"}, {-123.456, "-123.456"}, {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := string(AppendNumber(nil, c.in)); got != c.want {
			t.Errorf("AppendNumber(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	// Every exact integer below 2^53 gets the digits of its %f form.
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		f := math.Trunc((r.Float64()*2 - 1) * math.Exp2(float64(r.Intn(54))))
		if got, want := string(AppendNumber(nil, f)), strconv.FormatFloat(f, 'f', 0, 64); got != want && f != 0 {
			t.Fatalf("AppendNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

// TopText gives each member of the top object as the document wrote it:
// the last of a repeated name (the one the member holds), spaces inside
// kept, none outside; nil for a name not there, an object inside the
// document, or a document that is not an object.
func TestTopText(t *testing.T) {
	cases := []struct{ doc, key, want string }{
		{`{"a":1,"b":{"c": [1, 2]}}`, "b", `{"c": [1, 2]}`},
		{`{ "a" : "x y" , "b":2 }`, "a", `"x y"`},
		{`{"s":{"type":"string"},"t":0,"s":{"type":"object"}}`, "s", `{"type":"object"}`},
		{`{"s":{"s":1}}`, "s", `{"s":1}`},
		{`{"a":1}`, "b", ""},
		{`[{"a":1}]`, "a", ""},
		{`{}`, "a", ""},
	}
	for _, c := range cases {
		var d Decoder
		top, err := d.Parse([]byte(c.doc), 64, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(d.TopText(top, c.key)); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.doc, c.key, got, c.want)
		}
	}
	var d Decoder
	top, _ := d.Parse([]byte(`{"a":{"b":1}}`), 64, 0)
	if got := d.TopText(top.Get("a"), "b"); got != nil {
		t.Errorf("a member's own object: %q, want nil", got)
	}
}

// ParseKnowing gives Parse's outcome, errors and limits included, for
// documents around a member text it knows: only that member's value is not
// decoded (Deferred stands for it, of its kind).
func TestParseKnowing_AsParse(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"string","pattern":"^\"[}]"}},"required":["a"]}`
	docs := []string{
		`{"action":"x","schema":` + schema + `,"args":{"a":"b"}}`,
		`{"schema":true,"args":[1,2]}`,
		`{"schema":false}`,
		`{"schema":` + schema + `}`,
		`{"schema":{"type":"string"},"schema":` + schema + `}`,
		`{"schema":` + schema + `,"schema":{"type":"string"}}`,
		`{"schema":` + schema + ` ,"args":}`,
		`{"schema":` + schema + `x}`,
		`{"schema":` + schema,
		`{"schema":` + schema[:40],
		`{"schema":truex}`,
		`{"schema":[` + schema + `]}`,
		`{"args":{"schema":` + schema + `}}`,
		`[{"schema":` + schema + `}]`,
	}
	known := map[string]int{}
	for _, text := range []string{schema, "true", "false"} {
		var d Decoder
		if _, err := d.Parse([]byte(text), 64, 0); err != nil {
			t.Fatal(err)
		}
		known[text] = d.Count()
	}
	knows := func(text []byte) (any, int) {
		if n, ok := known[string(text)]; ok {
			return string(text), n
		}
		return nil, 0
	}
	for _, maxValues := range []int{0, 4, 8, 9, 11, 12} {
		for _, doc := range docs {
			var plain, knowing Decoder
			want, wantErr := plain.Parse([]byte(doc), 64, maxValues)
			got, gotErr := knowing.ParseKnowing([]byte(doc), 64, maxValues, "schema", knows)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("max %d, %s: error %v, want %v", maxValues, doc, gotErr, wantErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			deferred, found := knowing.Deferred()
			if deferred != nil && deferred != got.Get("schema") {
				t.Errorf("%s: Deferred is not what the member holds", doc)
			}
			if deferred != nil && found != string(AppendValue(nil, want.Get("schema"))) && found != "true" && found != "false" {
				t.Errorf("%s: Deferred found %v, not what known gave for the member's text", doc, found)
			}
			if deferred != nil {
				w := want.Get("schema")
				if deferred.Kind != w.Kind || deferred.Bool != w.Bool || len(deferred.Members) != 0 {
					t.Errorf("%s: deferred %+v, want a value of kind %v", doc, deferred, w.Kind)
				}
				*deferred = *w // the rest must be alike
			}
			if a, b := string(AppendValue(nil, got)), string(AppendValue(nil, want)); a != b {
				t.Errorf("%s:\n%s\nwant %s", doc, a, b)
			}
		}
	}
	var d Decoder
	d.ParseKnowing([]byte(docs[0]), 64, 0, "schema", knows)
	if v, _ := d.Deferred(); v == nil {
		t.Error("a known schema was decoded")
	}
	d.ParseKnowing([]byte(docs[0]), 64, 0, "schema", func([]byte) (any, int) { return nil, 0 })
	if v, found := d.Deferred(); v != nil || found != nil {
		t.Error("an unknown schema was not decoded")
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// hostileLine is one raw line sent to a server over stdio, as the Go SDK's
// client would never send it, and what its answer must be.
type hostileLine struct {
	name string
	line string
	// id is the JSON of the request's id; "" for a line that gets no
	// answer (the next request's answer must be the next line the server
	// writes).
	id string
	// tool is the tool called when the answer must be a <validation_error>
	// for it, and fields the names of its fields, in order.
	tool   string
	fields []string
	// code is the JSON-RPC error code the answer must carry (the gate's
	// answer to a malformed request or params).
	code int
	// result: the answer is a result that is not a tool's (ping's {}).
	result bool
	// success: the answer is the tool's success.
	success bool
	// own: the answer is the server's own validator's (its message differs
	// between languages): only its kind and fields are compared. Every
	// other answer must be the same from every server: the same text
	// blocks, the same error code and message, the same result.
	own bool
}

// toolsCall writes a tools/call request line.
func toolsCall(id any, tool, arguments string) string {
	idJSON, _ := json.Marshal(id)
	line := `{"jsonrpc":"2.0","id":` + string(idJSON) + `,"method":"tools/call","params":{"name":"` + tool + `"`
	if arguments != "" {
		line += `,"arguments":` + arguments
	}
	return line + "}}"
}

// nested returns a JSON array nested depth levels deep around leaf.
func nested(depth int, leaf string) string {
	return strings.Repeat("[", depth) + leaf + strings.Repeat("]", depth)
}

// nestedObjects returns depth objects, each the member "a" of the one
// around it, around leaf.
func nestedObjects(depth int, leaf string) string {
	return strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat("}", depth)
}

// values returns a JSON array of n zeros.
func values(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
}

// atTheLimit returns the arguments {"id":"bbb..."} that make the tools/call
// line toolsCall(id, tool, ...) exactly maxRequestBytes long: the gate hands
// it on, and a check of them beside any schema is over the module's limit.
func atTheLimit(id any, tool string) string {
	frame := len(toolsCall(id, tool, `{"id":""}`))
	return `{"id":"` + strings.Repeat("b", abi.MaxRequestBytes-frame) + `"}`
}

// argumentLines are the hostile arguments of a tools/call to tool, whose
// schema has one string property "id" matching ^inv_[0-9]{3}$: each gets
// the same <validation_error> from every server (the gate's, or, for
// arguments too large to check beside the schema, the host's).
func argumentLines(tool string) []hostileLine {
	root := []string{"(root)"}
	arg := func(name string, id any, args string) hostileLine {
		idJSON, _ := json.Marshal(id)
		return hostileLine{name: name, line: toolsCall(id, tool, args), id: string(idJSON), tool: tool, fields: root}
	}
	return []hostileLine{
		arg("1e309 for a string", 100, `{"id":1e309}`),
		arg("-1e400 deep in the arguments", 101, `{"id":[{"x":-1e400}]}`),
		arg("1.8e308", 102, `{"id":1.8e308}`),
		arg("a 400-digit integer", 103, `{"id":1`+strings.Repeat("0", 400)+`}`),
		arg("-1E+309 in a nested object", 104, `{"id":{"a":{"b":-1E+309}}}`),
		arg("65 levels of nesting", 105, `{"id":`+nested(64, "")+`}`),
		arg("129 levels, where serde_json stops", 106, `{"id":`+nested(128, "")+`}`),
		arg("257 levels, where the module's requests stop", 107, `{"id":`+nested(256, "")+`}`),
		arg("300 levels of objects", 108, nestedObjects(300, "1")),
		arg("5,000 levels, where the Go SDK's decoder stops", 109, `{"id":`+nested(4999, "")+`}`),
		arg("100,000 levels", 110, `{"id":`+nested(99_999, "")+`}`),
		arg("too deep before out of range", 111, `{"n":1e309,"d":`+nested(100, "")+`}`),
		arg("a 5 MB string", 112, `{"id":"`+strings.Repeat("a", 5_000_000)+`"}`),
		arg("arguments over the 4 MiB request limit", 113, `{"id":"`+strings.Repeat("a", 4<<20)+`"}`),
		arg("250,000 values in 500 KB", 114, `{"id":`+values(250_000)+`}`),
		arg("200,001 values", 115, `{"id":`+values(200_000)+`}`),
		arg("a line of 4 MiB, too large to check beside the schema", 116, atTheLimit(116, tool)),
		arg("arguments that are an array", 117, `[1,2]`),
		arg("arguments that are a string", 118, `"inv_001"`),
		arg("arguments that are a number", 119, `5`),
		arg("arguments that are true", 120, `true`),
		arg("a lone high surrogate", 121, `{"id":"\ud800"}`),
		arg("a lone low surrogate in a key", "s-122", `{"id":"inv_001","\udc00k":1}`),
		arg("a lone surrogate after a pair", 123, `{"id":"\ud83d\ude00\udfff"}`),
		arg("a byte that is not UTF-8", 124, "{\"id\":\"inv_\xff01\"}"),
		arg("an encoded surrogate (CESU-8)", 125, "{\"id\":\"\xed\xa0\x80\"}"),
		{name: "arguments before the name, 1e309 in them", line: `{"jsonrpc":"2.0","id":126,"method":"tools/call","params":{"arguments":{"id":1E309},"name":"` + tool + `"}}`,
			id: "126", tool: tool, fields: root},
		{name: "an escaped member name, 65 levels", line: `{"jsonrpc":"2.0","id":127,"method":"tools\/call","params":{"name":"` + tool + `","\u0061rguments":{"id":` + nested(64, "") + `}}}`,
			id: "127", tool: tool, fields: root},
		{name: "arguments given twice, which JSON-RPC cannot tell apart", line: `{"jsonrpc":"2.0","id":128,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"id":"inv_001"},"arguments":{"id":1e309}}}`,
			id: "128", code: -32602},
	}
}

// paramsLines are requests whose trouble lies outside tool arguments: in
// _meta, params, a cursor. Each gets the same answer from every server.
func paramsLines(tool string) []hostileLine {
	return []hostileLine{
		{name: "1e400 in _meta", line: `{"jsonrpc":"2.0","id":200,"method":"tools/list","params":{"_meta":{"n":1e400}}}`, id: "200", code: -32602},
		{name: "deep nesting in _meta", line: `{"jsonrpc":"2.0","id":201,"method":"ping","params":{"_meta":{"d":` + nested(80, "") + `}}}`, id: "201", code: -32602},
		{name: "an extra params member", line: `{"jsonrpc":"2.0","id":202,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"id":"inv_001"},"extra":1}}`, id: "202", success: true},
		{name: "ping params", line: `{"jsonrpc":"2.0","id":203,"method":"ping","params":{"x":1}}`, id: "203", result: true},
		{name: "a tools/list cursor that is not a string", line: `{"jsonrpc":"2.0","id":204,"method":"tools/list","params":{"cursor":5}}`, id: "204", code: -32602},
		{name: "params that are an array", line: `{"jsonrpc":"2.0","id":205,"method":"tools/list","params":[1]}`, id: "205", code: -32602},
		{name: "a tools/call without params", line: `{"jsonrpc":"2.0","id":206,"method":"tools/call"}`, id: "206", code: -32602},
		{name: "a tools/call without a name", line: `{"jsonrpc":"2.0","id":207,"method":"tools/call","params":{"arguments":{}}}`, id: "207", code: -32602},
		// What the SDKs dropped or answered with another id after the gate.
		{name: "null params", line: `{"jsonrpc":"2.0","id":208,"method":"ping","params":null}`, id: "208", result: true},
		{name: "_meta that is a string", line: `{"jsonrpc":"2.0","id":209,"method":"ping","params":{"_meta":"x"}}`, id: "209", code: -32602},
		{name: "null _meta", line: `{"jsonrpc":"2.0","id":210,"method":"ping","params":{"_meta":null}}`, id: "210", result: true},
		{name: "a progress token that is an object", line: `{"jsonrpc":"2.0","id":211,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"id":"inv_001"},"_meta":{"progressToken":{}}}}`, id: "211", code: -32602},
		{name: "a related task without a taskId", line: `{"jsonrpc":"2.0","id":212,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/related-task":{}}}}`, id: "212", code: -32602},
		{name: "a member JSON-RPC does not have", line: `{"jsonrpc":"2.0","id":213,"method":"ping","extra":1}`, id: "213", code: -32600},
		{name: "an id with a fraction", line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, id: "1.5", code: -32600},
		{name: "an id of 20 digits", line: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, id: "12345678901234567890", code: -32600},
		{name: "an id with an exponent", line: `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, id: "1e2", code: -32600},
	}
}

// billingLines is the session every billing server plays, in order.
func billingLines() []hostileLine {
	const get, list, pay = "billing.get_invoice", "billing.list_invoices", "billing.pay_invoice"
	lines := []hostileLine{
		{name: "a line that is not JSON", line: "this is not json {"},
		{name: "JSON that is not a JSON-RPC message", line: `{"foo":1}`},
		{name: "a JSON array", line: `[1,2,3]`},
		{name: "NaN, which is not JSON", line: toolsCall(6, list, `{"limit":NaN}`)},
		{name: "a blank line", line: "   "},
		{name: "a response whose code the Go SDK cannot read", line: `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`},
		{name: "an error response with a null id", line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`},
		{name: "an id without a method, result or error", line: `{"jsonrpc":"2.0","id":5}`, id: "5", code: -32600},
		{name: "another version", line: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, id: "7", code: -32600},
		{name: "a method that is not a string", line: `{"jsonrpc":"2.0","id":"m","method":5}`, id: `"m"`, code: -32600},
		{name: "a lone surrogate and a pair in another tool", line: toolsCall("s-11", get, `{"id":"inv_001","\udc00k":"\ud83d\ude00\ud800x\\ud800"}`),
			id: `"s-11"`, tool: get, fields: []string{"(root)"}},
		{name: "1e309 for a number", line: toolsCall(12, pay, `{"id":"inv_001","amount":1e309,"currency":"EUR"}`), id: "12", tool: pay, fields: []string{"(root)"}},
		{name: "-1e400 deep in the arguments", line: toolsCall(13, list, `{"limit":[{"x":-1e400}]}`), id: "13", tool: list, fields: []string{"(root)"}},
		{name: "1e308, a finite number", line: toolsCall(14, list, `{"limit":1e308}`), id: "14", tool: list, fields: []string{"limit"}},
		{name: "64 levels of nesting", line: toolsCall(17, get, `{"id":`+nested(63, "")+`}`), id: "17", tool: get, fields: []string{"id"}},
		{name: "250,000 values of another tool", line: toolsCall(19, list, `{"status":`+values(250_000)+`}`), id: "19", tool: list, fields: []string{"(root)"}},
		{name: "a number for a string", line: toolsCall(20, get, `{"id":5}`), id: "20", tool: get, fields: []string{"id"}},
		{name: "arguments that are null", line: toolsCall(23, get, `null`), id: "23", tool: get, fields: []string{"id"}},
		{name: "wrong types, the contract changed", line: toolsCall(24, pay, `{"id":1,"amount":"ten","currency":["EUR"]}`), id: "24", tool: pay,
			fields: []string{"id", "amount", "currency"}},
		{name: "a line ending in CRLF", line: toolsCall(28, get, `{"id":"INV-1"}`) + "\r", id: "28", tool: get, fields: []string{"id"}},
	}
	lines = append(lines, argumentLines(get)...)
	lines = append(lines, paramsLines(get)...)
	return append(lines, hostileLine{name: "a normal call after all of them", line: toolsCall(99, get, `{"id":"inv_001"}`), id: "99", success: true})
}

// quickstartLines is the session every quickstart plays: every hostile
// argument, answered alike; arguments that reach the quickstart's own
// validator, answered with its message; then a normal call.
func quickstartLines() []hostileLine {
	const get = "billing.get_invoice"
	own := func(name string, id int, args string) hostileLine {
		return hostileLine{name: name, line: toolsCall(id, get, args), id: fmt.Sprint(id), tool: get, fields: []string{"id"}, own: true}
	}
	lines := argumentLines(get)
	lines = append(lines,
		own("arguments that are null, read as {}", 130, `null`),
		own("1e308, a finite number for a string", 131, `{"id":1e308}`),
		own("64 levels of nesting, within the gate's limit", 132, `{"id":`+nested(63, "")+`}`),
		hostileLine{name: "a normal call after all of them", line: toolsCall(199, get, `{"id":"inv_001"}`), id: "199", success: true, own: true},
	)
	return lines
}

// hostileAnswer is what one request got: the answer, its JSON-RPC error,
// or what was wrong with it.
type hostileAnswer struct {
	answer
	rpcErr  *rpcError
	result  json.RawMessage // a result that is not a tool's
	problem string
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// hostileCount is what a hostile run measured, for its summary line.
type hostileCount struct {
	lines, requests, alike, own int
}

// playHostile sends every line to every server and returns how many lines
// passed and failed: each request must be answered with its id and as its
// line says, the same from every server (but for the servers' own
// validators' messages), and each server must keep serving.
func playHostile(ctx context.Context, h *host.Host, what string, servers []server, lines []hostileLine) (passed, failed int) {
	answers := map[string][]hostileAnswer{}
	for _, s := range servers {
		start := time.Now()
		got, stderr, err := sendRaw(ctx, s, lines)
		if err != nil {
			fmt.Printf("FAIL hostile %s %s: %v\nits stderr:\n%s\n", what, s.Name, err, stderr)
			failed++
			continue
		}
		answers[s.Name] = got
		fmt.Fprintf(os.Stderr, "hostile %s %s: %d lines in %.1fs\n", what, s.Name, len(lines), time.Since(start).Seconds())
	}
	if len(answers) != len(servers) {
		return passed, failed
	}
	var count hostileCount
	for i, l := range lines {
		ok := true
		var first *hostileAnswer
		firstName := ""
		for _, s := range servers {
			a := answers[s.Name][i]
			if a.problem == "" {
				a.problem = l.check(ctx, h, a)
			}
			if a.problem != "" {
				fmt.Printf("FAIL hostile %s %q: %s: %s\n%.2000s\n", what, l.name, s.Name, a.problem, a.answer)
				ok = false
				continue
			}
			if l.id == "" || l.own {
				continue
			}
			if first == nil {
				first, firstName = &a, s.Name
			} else if diff := sameHostile(a, *first); diff != "" {
				fmt.Printf("FAIL hostile %s %q: %s differs from %s\n%.4000s\n", what, l.name, s.Name, firstName, diff)
				ok = false
			}
		}
		count.lines++
		if l.id != "" {
			count.requests++
			if l.own {
				count.own++
			} else {
				count.alike++
			}
		}
		if ok {
			passed++
		} else {
			failed++
		}
	}
	fmt.Printf("hostile %s: %d raw lines per server, %d requests answered with their id by %d servers, %d of them alike (%d by the servers' own validators)\n",
		what, count.lines, count.requests, len(servers), count.alike, count.own)
	return passed, failed
}

// sameHostile compares two servers' answers to a line that must be answered
// alike.
func sameHostile(a, b hostileAnswer) string {
	switch {
	case a.rpcErr != nil || b.rpcErr != nil:
		if a.rpcErr == nil || b.rpcErr == nil || *a.rpcErr != *b.rpcErr {
			return fmt.Sprintf("--- got error %+v\n--- want error %+v", a.rpcErr, b.rpcErr)
		}
		return ""
	case a.result != nil || b.result != nil:
		if !sameJSON(a.result, b.result) {
			return fmt.Sprintf("--- got result %s\n--- want result %s", a.result, b.result)
		}
		return ""
	}
	return sameAnswer(a.answer, b.answer)
}

// check says what is wrong with the answer to l, or "".
func (l hostileLine) check(ctx context.Context, h *host.Host, a hostileAnswer) string {
	if l.id == "" {
		return ""
	}
	switch {
	case l.code != 0:
		if a.rpcErr == nil || a.rpcErr.Code != l.code {
			return fmt.Sprintf("want the JSON-RPC error %d, got %+v", l.code, a.rpcErr)
		}
		return ""
	case a.rpcErr != nil:
		return fmt.Sprintf("a JSON-RPC error: %+v", *a.rpcErr)
	case l.result:
		if a.result == nil {
			return "want a result"
		}
		return ""
	}
	if len(a.Texts) == 0 {
		return "no text content"
	}
	env, err := h.Parse(ctx, a.Texts[0])
	if err != nil {
		return err.Error()
	}
	if l.success {
		if a.IsError || env != nil {
			return "want the tool's success"
		}
		return ""
	}
	if !a.IsError || env == nil || env.Kind != "validation_error" || env.Action != l.tool {
		return fmt.Sprintf("want a <validation_error> for %s, parsed %s", l.tool, describe(env))
	}
	names := make([]string, len(env.Fields))
	for i, f := range env.Fields {
		names[i] = f.Name
	}
	if !reflect.DeepEqual(names, l.fields) {
		return fmt.Sprintf("fields %q, want %q", names, l.fields)
	}
	return ""
}

// sendRaw starts the server, initializes a session by hand and writes the
// lines one by one, reading each request's answer (with its id) before the
// next line.
func sendRaw(ctx context.Context, s server, lines []hostileLine) ([]hostileAnswer, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	p, err := startStdio(exec.CommandContext(ctx, "bash", "-c", "exec "+s.Start))
	if err != nil {
		return nil, "", err
	}
	defer p.stop(10 * time.Second)
	// next reads the server's next line, which must answer id.
	next := func(id string) (map[string]json.RawMessage, error) {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("the server closed its stdout (exited?)")
			}
			var msg map[string]json.RawMessage
			if err := json.Unmarshal(line, &msg); err != nil {
				return nil, fmt.Errorf("its answer is not JSON: %.300s", line)
			}
			if !sameIDText(msg["id"], id) {
				return msg, fmt.Errorf("an answer with id %s, want id %s: %.300s", msg["id"], id, line)
			}
			return msg, nil
		case <-time.After(2 * time.Minute):
			return nil, fmt.Errorf("no answer to the request with id %s within 2 minutes", id)
		}
	}
	if err := p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolerr-e2e-hostile","version":"1.0.0"}}}`); err != nil {
		return nil, p.stderr.String(), err
	}
	if _, err := next("1"); err != nil {
		return nil, p.stderr.String(), fmt.Errorf("initialize: %w", err)
	}
	if err := p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, p.stderr.String(), err
	}
	answers := make([]hostileAnswer, len(lines))
	for i, l := range lines {
		if err := p.send(l.line); err != nil {
			return nil, p.stderr.String(), fmt.Errorf("%s: writing: %w", l.name, err)
		}
		if l.id == "" {
			continue // no answer: the next request's answer comes next
		}
		msg, err := next(l.id)
		if err != nil {
			if msg == nil {
				return nil, p.stderr.String(), fmt.Errorf("%s: %w", l.name, err)
			}
			answers[i].problem = err.Error()
			continue
		}
		answers[i] = readHostile(msg)
	}
	return answers, p.stderr.String(), nil
}

// sameIDText reports whether an answer's id is the request's, as the same
// JSON value; a number must keep its text (1.5 answered as 1, or 1e2 as
// 100, is another id).
func sameIDText(got json.RawMessage, want string) bool {
	if len(want) > 0 && want[0] != '"' {
		return string(got) == want
	}
	return sameJSON(got, json.RawMessage(want))
}

// readHostile reads a JSON-RPC response: a tool result, another result or
// an error.
func readHostile(msg map[string]json.RawMessage) hostileAnswer {
	if e, ok := msg["error"]; ok {
		var re rpcError
		if err := json.Unmarshal(e, &re); err != nil {
			return hostileAnswer{problem: "undecodable error: " + string(e)}
		}
		return hostileAnswer{rpcErr: &re}
	}
	a := readResult(msg)
	out := hostileAnswer{answer: a}
	if a.Err == "" && a.Texts == nil {
		out.result = msg["result"]
	}
	return out
}

// readResult reads a JSON-RPC response as an answer.
func readResult(msg map[string]json.RawMessage) answer {
	if e, ok := msg["error"]; ok {
		return answer{Err: string(e)}
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(msg["result"], &res); err != nil {
		return answer{Err: "undecodable result: " + err.Error()}
	}
	a := answer{IsError: res.IsError}
	for _, c := range res.Content {
		if c.Type != "text" {
			a.Texts = append(a.Texts, "(non-text block "+c.Type+")")
			continue
		}
		a.Texts = append(a.Texts, c.Text)
	}
	return a
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"time"

	"github.com/toolerr/toolerr/host"
)

// hostileLine is one raw line sent to a billing server over stdio, as the
// Go SDK's client would never send it.
type hostileLine struct {
	name string
	line string
	// id is the JSON of the request's id; "" for a line that is not a
	// request, which gets no answer (the next request's answer must be the
	// next line the server writes).
	id string
	// tool is the tool called; the answer must be a <validation_error> for
	// it (every argument case), byte-identical on every server.
	tool string
	// fields are the names of the validation error's fields, in order.
	fields []string
	// success: the answer is the tool's success, byte-identical on every
	// server (the normal call that closes the session).
	success bool
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

// hostileLines is the session every server plays, in order.
func hostileLines() []hostileLine {
	const get, list, pay = "billing.get_invoice", "billing.list_invoices", "billing.pay_invoice"
	lines := []hostileLine{
		{name: "a line that is not JSON", line: "this is not json {"},
		{name: "JSON that is not a JSON-RPC message", line: `{"foo":1}`},
		{name: "a JSON array", line: `[1,2,3]`},
		{name: "a response without a result", line: `{"jsonrpc":"2.0","id":5}`},
		{name: "NaN, which is not JSON", line: toolsCall(6, list, `{"limit":NaN}`)},
		{name: "a blank line", line: "   "},
		{name: "a lone surrogate in a value", line: toolsCall(10, get, `{"id":"\ud800"}`), id: "10", tool: get, fields: []string{"id"}},
		{name: "lone surrogates in a key and beside a pair", line: toolsCall("s-11", get, `{"id":"inv_001","\udc00k":"\ud83d\ude00\ud800x\\ud800"}`),
			id: `"s-11"`, tool: get, fields: []string{"(root)"}},
		{name: "1e309 for a number", line: toolsCall(12, pay, `{"id":"inv_001","amount":1e309,"currency":"EUR"}`), id: "12", tool: pay, fields: []string{"(root)"}},
		{name: "-1e400 deep in the arguments", line: toolsCall(13, list, `{"limit":[{"x":-1e400}]}`), id: "13", tool: list, fields: []string{"(root)"}},
		{name: "1e308, a finite number", line: toolsCall(14, list, `{"limit":1e308}`), id: "14", tool: list, fields: []string{"limit"}},
		{name: "10,000 levels of nesting", line: toolsCall(15, get, `{"id":`+nested(9999, "")+`}`), id: "15", tool: get, fields: []string{"(root)"}},
		{name: "65 levels of nesting", line: toolsCall(16, get, `{"id":`+nested(64, "")+`}`), id: "16", tool: get, fields: []string{"(root)"}},
		{name: "64 levels of nesting", line: toolsCall(17, get, `{"id":`+nested(63, "")+`}`), id: "17", tool: get, fields: []string{"id"}},
		{name: "arguments over the 4 MiB request limit", line: toolsCall(18, get, `{"id":"`+strings.Repeat("a", 4<<20)+`"}`), id: "18", tool: get, fields: []string{"(root)"}},
		{name: "arguments just under 4 MiB, over it with the schema", line: toolsCall(25, get, `{"id":"`+strings.Repeat("b", 4<<20-16)+`"}`),
			id: "25", tool: get, fields: []string{"(root)"}},
		{name: "250,000 values in 500 KB", line: toolsCall(19, list, `{"status":[`+strings.TrimSuffix(strings.Repeat("0,", 250_000), ",")+`]}`),
			id: "19", tool: list, fields: []string{"(root)"}},
		{name: "a number for a string", line: toolsCall(20, get, `{"id":5}`), id: "20", tool: get, fields: []string{"id"}},
		{name: "arguments that are an array", line: toolsCall(21, get, `[1,2]`), id: "21", tool: get, fields: []string{"(root)"}},
		{name: "arguments that are a string", line: toolsCall(22, get, `"inv_001"`), id: "22", tool: get, fields: []string{"(root)"}},
		{name: "arguments that are null", line: toolsCall(23, get, `null`), id: "23", tool: get, fields: []string{"id"}},
		{name: "wrong types, the contract changed", line: toolsCall(24, pay, `{"id":1,"amount":"ten","currency":["EUR"]}`), id: "24", tool: pay,
			fields: []string{"id", "amount", "currency"}},
		{name: "arguments before the name, 1e309 in them", line: `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"arguments":{"id":1E309},"name":"billing.get_invoice"}}`,
			id: "26", tool: get, fields: []string{"(root)"}},
		{name: "an escaped member name, 65 levels", line: `{"jsonrpc":"2.0","id":27,"method":"tools\/call","params":{"name":"billing.get_invoice","\u0061rguments":{"id":` + nested(64, "") + `}}}`,
			id: "27", tool: get, fields: []string{"(root)"}},
		{name: "a line ending in CRLF", line: toolsCall(28, get, `{"id":"INV-1"}`) + "\r", id: "28", tool: get, fields: []string{"id"}},
		{name: "arguments given twice, which JSON-RPC cannot tell apart", line: `{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"billing.get_invoice","arguments":{"id":"inv_001"},"arguments":{"id":1e309}}}`},
		{name: "a normal call after all of them", line: toolsCall(99, get, `{"id":"inv_001"}`), id: "99", success: true},
	}
	return lines
}

// hostileAnswer is what one request got: the content texts and isError, or
// what was wrong with the answer.
type hostileAnswer struct {
	answer
	problem string
}

// playHostile sends every hostile line to every server and returns how
// many lines passed and failed: each request must be answered with its id,
// each argument case with a <validation_error> for its tool naming the
// expected fields, the same bytes from every server, and the server must
// keep serving.
func playHostile(ctx context.Context, h *host.Host, servers []server) (passed, failed int) {
	lines := hostileLines()
	answers := map[string][]hostileAnswer{}
	for _, s := range servers {
		start := time.Now()
		got, stderr, err := sendRaw(ctx, s, lines)
		if err != nil {
			fmt.Printf("FAIL hostile %s: %v\nits stderr:\n%s\n", s.Name, err, stderr)
			failed++
			continue
		}
		answers[s.Name] = got
		fmt.Fprintf(os.Stderr, "%s: %d hostile lines in %.1fs\n", s.Name, len(lines), time.Since(start).Seconds())
	}
	if len(answers) != len(servers) {
		return passed, failed
	}
	for i, l := range lines {
		ok := true
		var first *hostileAnswer
		firstName := ""
		for _, s := range servers {
			a := answers[s.Name][i]
			if a.problem == "" {
				a.problem = l.check(ctx, h, a.answer)
			}
			if a.problem != "" {
				fmt.Printf("FAIL hostile %q: %s: %s\n%s\n", l.name, s.Name, a.problem, a.answer)
				ok = false
				continue
			}
			if l.id == "" {
				continue
			}
			if first == nil {
				first, firstName = &a, s.Name
			} else if diff := sameAnswer(a.answer, first.answer); diff != "" {
				fmt.Printf("FAIL hostile %q: %s differs from %s\n%s\n", l.name, s.Name, firstName, diff)
				ok = false
			}
		}
		if ok {
			passed++
		} else {
			failed++
		}
	}
	fmt.Printf("hostile: %d raw lines per server, %d requests answered alike by %d servers\n", len(lines), countRequests(lines), len(servers))
	return passed, failed
}

func countRequests(lines []hostileLine) int {
	n := 0
	for _, l := range lines {
		if l.id != "" {
			n++
		}
	}
	return n
}

// check says what is wrong with the answer to l, or "".
func (l hostileLine) check(ctx context.Context, h *host.Host, a answer) string {
	if l.id == "" {
		return ""
	}
	if a.Err != "" {
		return "a JSON-RPC error: " + a.Err
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
	cmd := exec.CommandContext(ctx, "bash", "-c", "exec "+s.Start)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	out := make(chan string)
	go func() {
		defer close(out)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				out <- line
			}
			if err != nil {
				return
			}
		}
	}()
	send := func(line string) error {
		_, err := io.WriteString(stdin, line+"\n")
		return err
	}
	// next reads the server's next line, which must answer id.
	next := func(id string) (map[string]json.RawMessage, error) {
		select {
		case line, ok := <-out:
			if !ok {
				return nil, fmt.Errorf("the server closed its stdout (exited?)")
			}
			var msg map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				return nil, fmt.Errorf("its answer is not JSON: %.300s", line)
			}
			if !sameJSON(msg["id"], json.RawMessage(id)) {
				return msg, fmt.Errorf("an answer with id %s, want id %s: %.300s", msg["id"], id, line)
			}
			return msg, nil
		case <-time.After(2 * time.Minute):
			return nil, fmt.Errorf("no answer to the request with id %s within 2 minutes", id)
		}
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolerr-e2e-hostile","version":"1.0.0"}}}`); err != nil {
		return nil, stderr.String(), err
	}
	if _, err := next("1"); err != nil {
		return nil, stderr.String(), fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, stderr.String(), err
	}
	answers := make([]hostileAnswer, len(lines))
	for i, l := range lines {
		if err := send(l.line); err != nil {
			return nil, stderr.String(), fmt.Errorf("%s: writing: %w", l.name, err)
		}
		if l.id == "" {
			continue // no answer: the next request's answer comes next
		}
		msg, err := next(l.id)
		if err != nil {
			if msg == nil {
				return nil, stderr.String(), fmt.Errorf("%s: %w", l.name, err)
			}
			answers[i].problem = err.Error()
			continue
		}
		answers[i].answer = readResult(msg)
	}
	return answers, stderr.String(), nil
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

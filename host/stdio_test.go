package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/internal/testutil"
	"github.com/toolerr/toolerr/tests/vectors"
)

// TestGate_GoSDKReadsWhatPasses checks the gate against the Go SDK's own
// decoder: every vector line the gate passes, or the line it rewrites one
// to, is a message the SDK decodes (a line it cannot decode ends its
// connection).
func TestGate_GoSDKReadsWhatPasses(t *testing.T) {
	h := nativeHost(t)
	files := vectors.MustLoad(t, "../tests/vectors/v1")
	checked := 0
	for _, f := range files {
		if f.Export != "gate" {
			continue
		}
		for _, c := range f.Cases {
			line, err := c.Request()
			if err != nil || bytes.IndexByte(line, '\n') >= 0 {
				continue // the head of a line over the limit: not a line
			}
			v, err := h.Gate(context.Background(), line)
			if err != nil {
				t.Fatalf("%s: %v", c.Description, err)
			}
			switch v.Verdict {
			case abi.GateRewrite:
				line = []byte(v.Line)
			case abi.GatePass:
			default:
				continue
			}
			checked++
			if _, err := jsonrpc.DecodeMessage(line); err != nil {
				t.Errorf("%s: the gate hands on %q, which the Go SDK cannot decode: %v", c.Description, line, err)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d lines handed on", checked)
	}
}

func nativeHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Options{Engine: host.Native})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// session is a healed Go SDK server served on a GatedTransport over pipes.
type session struct {
	t      *testing.T
	client *io.PipeWriter
	lines  chan string
	log    *testutil.SyncBuffer
	done   chan error
}

func serveGated(t *testing.T, h *host.Host) *session {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "gated", Version: "1.0.0"}, nil)
	h.Heal(server)
	type getInput struct {
		ID string `json:"id"`
	}
	input, err := jsonschema.For[getInput](nil)
	if err != nil {
		t.Fatal(err)
	}
	input.Properties["id"].Pattern = `^inv_[0-9]{3}$`
	// 500 bytes of schema: arguments that fit a line under the request
	// limit can then be too large to check beside it.
	input.Description = strings.Repeat("d", 500)
	mcp.AddTool(server, &mcp.Tool{Name: "get", InputSchema: input}, func(_ context.Context, _ *mcp.CallToolRequest, in getInput) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.ID}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, client: inW, lines: make(chan string, 16), log: &testutil.SyncBuffer{}, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.done <- server.Run(ctx, &host.GatedTransport{Host: h, In: inR, Out: outW, Log: s.log}) }()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(s.lines)
				return
			}
			s.lines <- line
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		outW.Close()
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.client, line+"\n"); err != nil {
		s.t.Fatalf("writing: %v", err)
	}
}

// next is the next line the server writes, decoded.
func (s *session) next() map[string]json.RawMessage {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the server closed its output; log: %s", s.log)
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			s.t.Fatalf("not JSON: %.200q", line)
		}
		return msg
	case err := <-s.done:
		s.t.Fatalf("the server stopped: %v; log: %s", err, s.log)
	case <-time.After(time.Minute):
		s.t.Fatal("no answer within a minute")
	}
	return nil
}

func toolCall(id, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"get","arguments":` + args + `}}`
}

// TestGatedTransport_EveryRequestAnswered plays lines the Go SDK ends its
// connection on, or answers wrongly, through the gate in front of a healed
// server: each request gets an answer with its id (the gate's own where it
// answers), the others none, and the server goes on serving.
func TestGatedTransport_EveryRequestAnswered(t *testing.T) {
	h := nativeHost(t)
	s := serveGated(t, h)
	lines := []struct {
		name, line, id string
	}{
		{"not JSON", `{"jsonrpc":`, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, ""},
		{"an error response the SDK cannot decode", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, ""},
		{"an error response with a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`, ""},
		{"nesting the SDK stops at", toolCall("10", `{"id":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`), "10"},
		{"1e400", toolCall("11", `{"id":1e400}`), "11"},
		{"a lone surrogate", toolCall(`"s"`, `{"id":"\ud800"}`), `"s"`},
		{"arguments that are a string", toolCall("12", `"inv_001"`), "12"},
		{"another version", `{"jsonrpc":"1.0","id":13,"method":"ping"}`, "13"},
		{"an id with a fraction, which the SDK answers as 1", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5"},
		{"params that are an array", `{"jsonrpc":"2.0","id":14,"method":"tools/list","params":[1]}`, "14"},
		{"over the request limit", toolCall("15", `{"id":"`+strings.Repeat("a", 5<<20)+`"}`), "15"},
	}
	for _, l := range lines {
		s.send(l.line)
		if l.id == "" {
			continue
		}
		msg := s.next()
		if string(msg["id"]) != l.id {
			t.Fatalf("%s: answered id %s, want %s", l.name, msg["id"], l.id)
		}
		v, err := h.Gate(context.Background(), []byte(l.line))
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict == abi.GateAnswer {
			var want map[string]json.RawMessage
			if err := json.Unmarshal([]byte(v.Response), &want); err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, msg, want) {
				t.Errorf("%s: answered %v, want the gate's %s", l.name, msg, v.Response)
			}
		}
	}
	s.send(toolCall("99", `{"id":"inv_001"}`))
	if msg := s.next(); string(msg["id"]) != "99" || !strings.Contains(string(msg["result"]), `"text":"inv_001"`) {
		t.Fatalf("the last call got %v", msg)
	}
	for _, want := range []string{"ignored a line of 11 bytes from the client: not JSON", "a batch", "an error is an object", "null id"} {
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, s.log)
		}
	}
}

func sameJSON(t *testing.T, a, b map[string]json.RawMessage) bool {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xv, yv any
	json.Unmarshal(x, &xv)
	json.Unmarshal(y, &yv)
	xs, _ := json.Marshal(xv)
	ys, _ := json.Marshal(yv)
	return bytes.Equal(xs, ys)
}

// TestHeal_ArgumentsTooLargeToCheck: arguments the gate passes but that
// make a validate request over the module's limit get the gate's too-large
// error, not INTERNAL_ERROR.
func TestHeal_ArgumentsTooLargeToCheck(t *testing.T) {
	h := nativeHost(t)
	s := serveGated(t, h)
	args := `{"id":"` + strings.Repeat("c", abi.MaxRequestBytes-200) + `"}` // a line of 4194268 bytes
	s.send(toolCall("5", args))
	msg := s.next()
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(msg["result"], &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("answer %.300s (%v)", msg["result"], err)
	}
	want, err := h.ArgumentsTooLarge(context.Background(), "get", len(args))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Content[0].Text != want.Content[0].Text {
		t.Errorf("got %q, want %q", res.Content[0].Text, want.Content[0].Text)
	}
	// The message those arguments make: toolCall's, with id 0.
	if !strings.Contains(want.Content[0].Text, "a message of "+strconv.Itoa(len(toolCall("0", args)))+" bytes") {
		t.Errorf("the error does not measure the message: %q", want.Content[0].Text)
	}
}

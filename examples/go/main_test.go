package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// update rewrites every call's answer in examples/scenario.json with what
// this server returns (and, when TestBilling_Readme runs too, the transcript
// in examples/README.md):
//
//	go test ./examples/go -run TestBilling_Scenario -update
//
// The hand-written expectations (kind, code, fields, payload, ...) stay as
// they are and are still checked, so a wrong answer fails even then.
var update = flag.Bool("update", false, "rewrite the answers in ../scenario.json (and the transcript in ../README.md) from this server")

const (
	scenarioPath = "../scenario.json"
	readmePath   = "../README.md"
)

// scenario is examples/scenario.json: the billing demo every example server
// plays, session by session.
type scenario struct {
	Description string    `json:"description"`
	Sessions    []session `json:"sessions"`
}

// session is one server process: the state (paid invoices, the pay_invoice
// counter) carries from call to call.
type session struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Calls       []call `json:"calls"`
}

// call is one tools/call: what is sent, what it must mean (expect, written
// by hand) and exactly what comes back (answer, rewritten by -update).
type call struct {
	Name      string          `json:"name"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"` // absent: the call sends none
	Readme    bool            `json:"readme,omitempty"`    // shown in examples/README.md's transcript
	Expect    json.RawMessage `json:"expect"`
	Answer    answer          `json:"answer"`
}

type answer struct {
	IsError bool     `json:"isError"`
	Content []string `json:"content"` // the text of every content block
}

// expectation is a call's expect: what the answer must say, as a typed
// client reads it back.
type expectation struct {
	Kind       string          `json:"kind"` // success, warning, tool_error, validation_error
	Code       string          `json:"code"`
	Severity   string          `json:"severity"`
	Recovery   bool            `json:"recovery"` // a <recovery> is present
	Message    *string         `json:"message"`
	Actions    []string        `json:"actions"`
	Details    json.RawMessage `json:"details"` // an object of texts, in order
	RetryAfter *float64        `json:"retryAfter"`
	Fields     []string        `json:"fields"`   // validation_error: the fields named, in order
	Contract   string          `json:"contract"` // validation_error: the awareness block's max severity, "" for none
	Payload    json.RawMessage `json:"payload"`  // success and warning: the JSON value of the last block
}

func (c call) expectation(t *testing.T) expectation {
	t.Helper()
	var e expectation
	dec := json.NewDecoder(bytes.NewReader(c.Expect))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("%s: expect: %v", c.Name, err)
	}
	return e
}

// args is the arguments as compact JSON text, "" for none.
func (c call) args() string {
	if c.Arguments == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, c.Arguments); err != nil {
		return string(c.Arguments)
	}
	return b.String()
}

func loadScenario(t *testing.T) *scenario {
	t.Helper()
	data, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	var s scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", scenarioPath, err)
	}
	return &s
}

// encode writes the scenario in the file's one layout: one line per key of
// a call, arguments and expect as compact JSON, one line per text block.
func (s *scenario) encode() ([]byte, error) {
	var b bytes.Buffer
	str := func(v string) string {
		var e bytes.Buffer
		enc := json.NewEncoder(&e)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		return strings.TrimSuffix(e.String(), "\n")
	}
	compact := func(raw json.RawMessage) (string, error) {
		var e bytes.Buffer
		err := json.Compact(&e, raw)
		return e.String(), err
	}
	fmt.Fprintf(&b, "{\n  \"description\": %s,\n  \"sessions\": [\n", str(s.Description))
	for i, sess := range s.Sessions {
		fmt.Fprintf(&b, "    {\n      \"name\": %s,\n      \"description\": %s,\n      \"calls\": [\n", str(sess.Name), str(sess.Description))
		for j, c := range sess.Calls {
			fmt.Fprintf(&b, "        {\n          \"name\": %s,\n          \"tool\": %s,\n", str(c.Name), str(c.Tool))
			if c.Arguments != nil {
				args, err := compact(c.Arguments)
				if err != nil {
					return nil, fmt.Errorf("%s: arguments: %w", c.Name, err)
				}
				fmt.Fprintf(&b, "          \"arguments\": %s,\n", args)
			}
			if c.Readme {
				b.WriteString("          \"readme\": true,\n")
			}
			exp, err := compact(c.Expect)
			if err != nil {
				return nil, fmt.Errorf("%s: expect: %w", c.Name, err)
			}
			fmt.Fprintf(&b, "          \"expect\": %s,\n", exp)
			fmt.Fprintf(&b, "          \"answer\": {\n            \"isError\": %v,\n            \"content\": [", c.Answer.IsError)
			for k, text := range c.Answer.Content {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "\n              %s", str(text))
			}
			if len(c.Answer.Content) > 0 {
				b.WriteString("\n            ")
			}
			b.WriteString("]\n          }\n        }")
			if j < len(sess.Calls)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("      ]\n    }")
		if i < len(s.Sessions)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// validationRecovery ends every <validation_error>'s fields.
const validationRecovery = "Fix the fields above and call the tool again. Do not explain the error."

func TestBilling_Scenario(t *testing.T) {
	ctx := context.Background()
	sc := loadScenario(t)
	bin := buildServer(t)
	h := newHost(t)
	for i := range sc.Sessions {
		sess := &sc.Sessions[i]
		session := startServer(t, bin)
		if i == 0 {
			t.Run("initialize", func(t *testing.T) {
				init := session.InitializeResult()
				if init.ServerInfo.Name != "billing-go" || init.Capabilities.Tools == nil {
					t.Errorf("initialize = %+v", init)
				}
			})
			t.Run("tools/list gives the five tools of schemas.json", func(t *testing.T) { checkTools(t, session) })
		}
		for j := range sess.Calls {
			c := &sess.Calls[j]
			t.Run(sess.Name+"/"+c.Name, func(t *testing.T) { runCall(t, h, session, c) })
		}
		if i == 0 {
			t.Run("unknown tool is answered by the SDK", func(t *testing.T) {
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "billing.refund_invoice", Arguments: json.RawMessage(`{}`)})
				if err == nil {
					t.Fatalf("no error; result %+v", res)
				}
				if !strings.Contains(err.Error(), `unknown tool "billing.refund_invoice"`) {
					t.Errorf("error = %v", err)
				}
			})
		}
	}
	if *update {
		data, err := sc.encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(scenarioPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", scenarioPath)
	}
}

func checkTools(t *testing.T, session *mcp.ClientSession) {
	res, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]struct {
		Description string `json:"description"`
		InputSchema any    `json:"inputSchema"`
	}
	readJSON(t, "../schemas.json", &defs)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		def, ok := defs[tool.Name]
		if !ok {
			t.Errorf("tool %q is not in schemas.json", tool.Name)
			continue
		}
		if tool.Description != def.Description {
			t.Errorf("%s: description %q, want %q", tool.Name, tool.Description, def.Description)
		}
		if !reflect.DeepEqual(tool.InputSchema, def.InputSchema) {
			t.Errorf("%s: inputSchema %v, want %v", tool.Name, tool.InputSchema, def.InputSchema)
		}
	}
	want := []string{"billing.export_invoices", "billing.get_invoice", "billing.list_invoices", "billing.pay_invoice", "billing.void_invoice"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %q, want %q", names, want)
	}
}

// runCall makes the call and checks the answer: the exact texts and
// isError of the scenario (taken from the server instead with -update),
// then what the expectation says, read back with h.CheckResult and h.Parse.
func runCall(t *testing.T, h *host.Host, session *mcp.ClientSession, c *call) {
	ctx := context.Background()
	exp := c.expectation(t)
	params := &mcp.CallToolParams{Name: c.Tool}
	if args := c.args(); args != "" {
		params.Arguments = json.RawMessage(args)
	}
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(t, res)
	if *update {
		c.Answer = answer{IsError: res.IsError, Content: got}
	}
	if !slices.Equal(got, c.Answer.Content) {
		t.Errorf("content:\n%s\nwant:\n%s", strings.Join(got, "\n----\n"), strings.Join(c.Answer.Content, "\n----\n"))
	}
	if res.IsError != c.Answer.IsError {
		t.Errorf("isError = %v, want %v", res.IsError, c.Answer.IsError)
	}
	if len(got) == 0 {
		t.Fatal("no content")
	}
	last := got[len(got)-1]
	err = h.CheckResult(ctx, res)
	switch exp.Kind {
	case "success", "warning":
		if res.IsError || err != nil {
			t.Errorf("isError %v, CheckResult = %v; want a success", res.IsError, err)
		}
		checkPayload(t, last, exp.Payload)
		if exp.Kind == "success" {
			if len(got) != 1 {
				t.Errorf("%d blocks, want 1", len(got))
			}
			return
		}
		env, perr := h.Parse(ctx, got[0])
		if len(got) != 2 || perr != nil || env == nil || env.Kind != "tool_error" || env.IsError ||
			env.Code != exp.Code || env.Severity != exp.Severity || (env.Recovery != nil) != exp.Recovery {
			t.Errorf("want a %s/%s warning block, then the payload; parsed %+v (%v)", exp.Code, exp.Severity, env, perr)
		}
		return
	case "tool_error", "validation_error":
	default:
		t.Fatalf("unknown kind %q", exp.Kind)
	}
	var ce *host.ClientError
	if !errors.As(err, &ce) {
		t.Fatalf("CheckResult = %v, want a *host.ClientError", err)
	}
	if ce.Kind != exp.Kind || ce.Code != exp.Code || ce.Severity != exp.Severity || (ce.Recovery != nil) != exp.Recovery {
		t.Errorf("CheckResult: kind %q code %q severity %q recovery %v; want %q %q %q %v",
			ce.Kind, ce.Code, ce.Severity, ce.Recovery != nil, exp.Kind, exp.Code, exp.Severity, exp.Recovery)
	}
	// What is read back is what the text says.
	if ce.Recovery != nil && !strings.Contains(got[0], "\n<recovery>"+escapeContent(*ce.Recovery)+"</recovery>\n") {
		t.Errorf("recovery %q is not the text's", *ce.Recovery)
	}
	if exp.Message != nil && ce.Message != *exp.Message {
		t.Errorf("message = %q, want %q", ce.Message, *exp.Message)
	}
	if exp.Kind == "tool_error" && !strings.Contains(got[0], "\n<message>"+escapeContent(ce.Message)+"</message>\n") {
		t.Errorf("message %q is not the text's", ce.Message)
	}
	if exp.Actions != nil && !slices.Equal(ce.AvailableActions, exp.Actions) {
		t.Errorf("actions = %q, want %q", ce.AvailableActions, exp.Actions)
	}
	if exp.Details != nil {
		var want abi.Details
		if err := json.Unmarshal(exp.Details, &want); err != nil {
			t.Fatal(err)
		}
		// XML carries no types: a number detail parses back as its text.
		if !reflect.DeepEqual(ce.Details, want) {
			t.Errorf("details = %#v, want %#v", ce.Details, want)
		}
	}
	if exp.RetryAfter != nil && (ce.RetryAfter == nil || *ce.RetryAfter != *exp.RetryAfter) {
		t.Errorf("retryAfter = %v, want %v", ce.RetryAfter, *exp.RetryAfter)
	}
	if exp.Kind != "validation_error" {
		return
	}
	names := make([]string, len(ce.Fields))
	for i, f := range ce.Fields {
		names[i] = f.Name
		if !strings.Contains(got[0], "\n<field name=\""+escapeAttr(f.Name)+"\">"+escapeContent(f.Message)+"</field>\n") {
			t.Errorf("field %+v is not one of the text's", f)
		}
	}
	if !slices.Equal(names, exp.Fields) {
		t.Errorf("fields = %q, want %q", names, exp.Fields)
	}
	if ce.Recovery == nil || *ce.Recovery != validationRecovery {
		t.Errorf("recovery = %v", ce.Recovery)
	}
	env, err := h.Parse(ctx, got[0])
	if err != nil || env == nil {
		t.Fatalf("parse: %v %v", env, err)
	}
	contract := ""
	if env.Contract != nil {
		contract = env.Contract.MaxSeverity
		if env.Contract.Tool != c.Tool || env.Contract.Action != c.Tool || env.Contract.ChangeCount != len(env.Contract.Changes) {
			t.Errorf("contract = %+v", env.Contract)
		}
	}
	if env.Action != c.Tool || contract != exp.Contract {
		t.Errorf("action %q, contract awareness %q; want %q, %q", env.Action, contract, c.Tool, exp.Contract)
	}
}

// checkPayload checks that text is JSON with the value of want.
func checkPayload(t *testing.T, text string, want json.RawMessage) {
	t.Helper()
	var got, w any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Errorf("payload is not JSON: %v", err)
		return
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("expect.payload: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("payload = %s, want %s", text, want)
	}
}

// escapeContent and escapeAttr are docs/CONTRACT.md's CONTENT() and ATTR(),
// enough for the scenario's texts.
func escapeContent(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", "]]>", "]]&gt;").Replace(s)
}

func escapeAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// TestBilling_ScenarioFile checks examples/scenario.json: its layout is the
// one -update writes (so a rewrite changes only answers), names are unique
// within a session, and each expectation fits its kind and answer.
func TestBilling_ScenarioFile(t *testing.T) {
	sc := loadScenario(t)
	data, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := sc.encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encoded, data) {
		t.Errorf("%s is not in the layout -update writes; it should read:\n%s", scenarioPath, encoded)
	}
	if len(sc.Sessions) == 0 {
		t.Fatal("no session")
	}
	for i, sess := range sc.Sessions {
		seen := map[string]bool{}
		for _, c := range sess.Calls {
			if seen[c.Name] {
				t.Errorf("%s: two calls named %q", sess.Name, c.Name)
			}
			seen[c.Name] = true
			if c.Readme && i != 0 {
				t.Errorf("%s/%s: the transcript shows calls of the first session only", sess.Name, c.Name)
			}
			exp := c.expectation(t)
			isError := exp.Kind == "tool_error" || exp.Kind == "validation_error"
			hasPayload := exp.Kind == "success" || exp.Kind == "warning"
			switch {
			case !isError && !hasPayload:
				t.Errorf("%s/%s: kind %q", sess.Name, c.Name, exp.Kind)
			case hasPayload != (exp.Payload != nil):
				t.Errorf("%s/%s: a payload goes with success and warning only", sess.Name, c.Name)
			case (exp.Kind == "validation_error") != (exp.Fields != nil):
				t.Errorf("%s/%s: fields go with validation_error only", sess.Name, c.Name)
			case exp.Contract != "" && exp.Kind != "validation_error":
				t.Errorf("%s/%s: contract goes with validation_error only", sess.Name, c.Name)
			case exp.Kind != "success" && (exp.Code == "" || exp.Severity == ""):
				t.Errorf("%s/%s: %s needs code and severity", sess.Name, c.Name, exp.Kind)
			case c.Answer.IsError != isError || len(c.Answer.Content) == 0:
				t.Errorf("%s/%s: answer isError %v with %d blocks for kind %s", sess.Name, c.Name, c.Answer.IsError, len(c.Answer.Content), exp.Kind)
			}
		}
	}
}

// TestBilling_Readme checks that the transcript in examples/README.md is
// the scenario's calls marked readme, with their answers; with -update it
// rewrites the transcript instead.
func TestBilling_Readme(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	sc := loadScenario(t)
	var entries []string
	for _, c := range sc.Sessions[0].Calls {
		if c.Readme {
			entries = append(entries, transcriptEntry(c))
		}
	}
	transcript := "```text\n" + strings.Join(entries, "\n") + "```\n"
	if strings.Contains(string(readme), transcript) {
		return
	}
	if *update {
		// The transcript is the first text block after the heading.
		const heading = "\n## What the calls return\n"
		h := bytes.Index(readme, []byte(heading))
		start := -1
		if h >= 0 {
			start = bytes.Index(readme[h:], []byte("\n```text\n"))
		}
		if start < 0 {
			t.Fatalf("%s: no text block after %q", readmePath, strings.TrimSpace(heading))
		}
		start += h + 1
		end := bytes.Index(readme[start+len("```text\n"):], []byte("\n```\n"))
		if end < 0 {
			t.Fatalf("%s: the transcript block does not end", readmePath)
		}
		end += start + len("```text\n") + len("\n```\n")
		out := append(append(append([]byte{}, readme[:start]...), transcript...), readme[end:]...)
		if err := os.WriteFile(readmePath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the transcript in %s", readmePath)
		return
	}
	t.Errorf("examples/README.md does not hold the transcript; it should read:\n%s", transcript)
}

// TestBilling_SharedFiles checks that the embedded schemas.json and
// billing.lock.json are the canonical files of examples/, byte for byte.
func TestBilling_SharedFiles(t *testing.T) {
	for _, name := range []string{"schemas.json", "billing.lock.json"} {
		embedded, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		canonical, err := os.ReadFile("../" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, canonical) {
			t.Errorf("examples/go/%s differs from examples/%s: copy the canonical file over", name, name)
		}
	}
}

// TestBilling_ServersFile checks the entry the end-to-end tests read.
func TestBilling_ServersFile(t *testing.T) {
	var file struct {
		Servers []struct {
			Name, Prepare, Start string
		} `json:"servers"`
	}
	readJSON(t, "../servers.json", &file)
	i := slices.IndexFunc(file.Servers, func(s struct{ Name, Prepare, Start string }) bool { return s.Name == "go" })
	if i < 0 {
		t.Fatal(`examples/servers.json has no "go" server`)
	}
	if s := file.Servers[i]; s.Prepare != "go build -o bin/billing-go ./examples/go" || s.Start != "bin/billing-go" {
		t.Errorf("go server = %+v", s)
	}
}

// texts returns the text of every content block; any other block fails.
func texts(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content block %T, want text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// transcriptEntry is one call as examples/README.md shows it: the call,
// isError, and each content block's text.
func transcriptEntry(c call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\nisError: %v\n", c.Tool, c.args(), c.Answer.IsError)
	for i, text := range c.Answer.Content {
		fmt.Fprintf(&b, "content[%d]:\n%s\n", i, text)
	}
	return b.String()
}

// buildServer builds the server binary the way examples/servers.json does.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "billing-go")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer runs bin over stdio and connects the SDK's client to it; the
// session closes, and the process ends, when the test does.
func startServer(t *testing.T, bin string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	var stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "billing-test", Version: "0.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nserver stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := session.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if stderr.Len() > 0 {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return session
}

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

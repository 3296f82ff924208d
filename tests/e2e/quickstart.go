package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	quickstartcalls "github.com/toolerr/toolerr/examples/go/quickstart/calls"
	"github.com/toolerr/toolerr/host"
)

// playQuickstarts prepares (unless skipPrepare) and plays every quickstart
// of examples/servers.json, and returns how many checks passed and failed.
// Each answer must be what examples/quickstart.json says; a validation
// error must name exactly the field "id" (through the module's parse), so
// only the validator's message may differ between languages.
func playQuickstarts(ctx context.Context, h *host.Host, quickstarts []server, skipPrepare bool) (passed, failed int, err error) {
	spec, err := quickstartcalls.Load("examples/quickstart.json")
	if err != nil {
		return 0, 0, err
	}
	calls := make([]call, len(spec))
	for i, c := range spec {
		calls[i] = call{tool: c.Tool, args: string(c.Arguments)}
	}
	for _, s := range quickstarts {
		if !skipPrepare && s.Prepare != "" {
			cmd := exec.Command("bash", "-c", s.Prepare)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return passed, failed, fmt.Errorf("quickstart %s: prepare: %w", s.Name, err)
			}
		}
		_, got, err := play(ctx, s, calls)
		if err != nil {
			return passed, failed, fmt.Errorf("quickstart %s: %w", s.Name, err)
		}
		for i, c := range spec {
			if problem := checkQuickstart(ctx, h, c, got[i]); problem != "" {
				fmt.Printf("FAIL quickstart %s %s %s: %s\n%s\n", s.Name, c.Tool, c.Arguments, problem, got[i])
				failed++
			} else {
				passed++
			}
		}
	}
	return passed, failed, nil
}

func checkQuickstart(ctx context.Context, h *host.Host, c quickstartcalls.Call, a answer) string {
	if a.Err != "" {
		return "a protocol error instead of a result"
	}
	if problem := c.Check(a.Texts, a.IsError); problem != "" {
		return problem
	}
	if !strings.HasPrefix(c.StartsWith, "<validation_error") {
		return ""
	}
	env, err := h.Parse(ctx, a.Texts[0])
	if err != nil || env == nil || env.Kind != "validation_error" || len(env.Fields) != 1 || env.Fields[0].Name != "id" {
		return "want a <validation_error> naming exactly the field id"
	}
	return ""
}

// playQuickstartsSDKClient plays examples/quickstart.json's calls, and
// arguments nested too deeply for the module's gate, against every
// quickstart through the Python SDK's own Client (tests/e2e/sdk_client.py)
// in its default mode, which speaks the stateless protocol (2026-07-28) to
// a server whose SDK has it and the handshake to the others: every answer
// must be one the Client reads, and what the calls say.
func playQuickstartsSDKClient(ctx context.Context, quickstarts []server) (passed, failed int, err error) {
	spec, err := quickstartcalls.Load("examples/quickstart.json")
	if err != nil {
		return 0, 0, err
	}
	deep := json.RawMessage(`{"id":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`)
	spec = append(spec, quickstartcalls.Call{Tool: "billing.get_invoice", Arguments: deep, IsError: true,
		StartsWith: `<validation_error action="billing.get_invoice">` + "\n" + `<field name="(root)">The arguments are nested too deeply`})
	in := make([][2]json.RawMessage, len(spec))
	for i, c := range spec {
		in[i] = [2]json.RawMessage{json.RawMessage(strconv.Quote(c.Tool)), c.Arguments}
	}
	stdin, _ := json.Marshal(in)
	for _, s := range quickstarts {
		runCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
		cmd := exec.CommandContext(runCtx, venvPython, append([]string{"tests/e2e/sdk_client.py", "auto"}, strings.Fields(s.Start)...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, runErr := cmd.Output()
		cancel()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var first struct{ ProtocolVersion string }
		json.Unmarshal([]byte(lines[0]), &first)
		if runErr != nil || len(lines) != len(spec)+1 {
			fmt.Printf("FAIL quickstart %s with the Python SDK's Client: %v, %d lines for %d calls: %s\n", s.Name, runErr, len(lines), len(spec), lastLines(stderr.String(), 5))
			failed++
			continue
		}
		for i, c := range spec {
			var got struct {
				IsError bool
				Texts   []string
				Raised  string
			}
			json.Unmarshal([]byte(lines[i+1]), &got)
			problem := got.Raised
			if problem == "" {
				problem = c.Check(got.Texts, got.IsError)
			} else {
				problem = "the Client raised " + problem
			}
			if problem != "" {
				fmt.Printf("FAIL quickstart %s with the Python SDK's Client (%s) %s %.80s: %s\n%q\n", s.Name, first.ProtocolVersion, c.Tool, c.Arguments, problem, got.Texts)
				failed++
			} else {
				passed++
			}
		}
		fmt.Fprintf(os.Stderr, "quickstart %s with the Python SDK's Client: protocol %s\n", s.Name, first.ProtocolVersion)
	}
	return passed, failed, nil
}

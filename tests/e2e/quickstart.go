package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"

	"github.com/toolerr/toolerr/host"
)

// quickstartCall is one call of examples/quickstart.json: the calls every
// quickstart server (the SDK's high-level API plus one line of toolerr)
// must answer alike.
type quickstartCall struct {
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	IsError    bool            `json:"isError"`
	StartsWith string          `json:"startsWith"`
	JSON       json.RawMessage `json:"json"`
}

// playQuickstarts prepares (unless skipPrepare) and plays every quickstart
// of examples/servers.json, and returns how many checks passed and failed.
// Each answer must be what examples/quickstart.json says; a validation
// error must name exactly the field "id" (through the module's parse), so
// only the validator's message may differ between languages.
func playQuickstarts(ctx context.Context, h *host.Host, quickstarts []server, skipPrepare bool) (passed, failed int, err error) {
	var spec struct{ Calls []quickstartCall }
	raw, err := os.ReadFile("examples/quickstart.json")
	if err == nil {
		err = json.Unmarshal(raw, &spec)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("examples/quickstart.json: %w", err)
	}
	calls := make([]call, len(spec.Calls))
	for i, c := range spec.Calls {
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
		for i, c := range spec.Calls {
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

func checkQuickstart(ctx context.Context, h *host.Host, c quickstartCall, a answer) string {
	switch {
	case a.Err != "":
		return "a protocol error instead of a result"
	case len(a.Texts) != 1:
		return fmt.Sprintf("%d text blocks, want 1", len(a.Texts))
	case a.IsError != c.IsError:
		return fmt.Sprintf("isError %v, want %v", a.IsError, c.IsError)
	case c.JSON != nil:
		var got, want any
		if json.Unmarshal([]byte(a.Texts[0]), &got) != nil || json.Unmarshal(c.JSON, &want) != nil || !reflect.DeepEqual(got, want) {
			return "want the JSON " + string(c.JSON)
		}
	case !strings.HasPrefix(a.Texts[0], c.StartsWith):
		return fmt.Sprintf("want a text starting %q", c.StartsWith)
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

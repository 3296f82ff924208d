package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

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

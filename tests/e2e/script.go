package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// scenarioPath is the billing scenario: the calls every example server
// plays, each with its exact answer and what that answer must mean. The Go
// server's test rewrites its answers (go test ./examples/go -run
// TestBilling_Scenario -update).
const scenarioPath = "examples/scenario.json"

// scenarioSession is one server process of the scenario.
type scenarioSession struct {
	name  string
	calls []call
}

// call is one tools/call and what its answer must be. The quickstarts'
// calls fill in tool and args only.
type call struct {
	name       string
	tool, args string // args: the arguments as JSON text, "" for none
	expect     expectation
	want       answer // the exact answer
}

// expectation is a call's expect in examples/scenario.json.
type expectation struct {
	Kind       string          `json:"kind"` // success, warning, tool_error, validation_error
	Code       string          `json:"code"`
	Severity   string          `json:"severity"`
	Recovery   bool            `json:"recovery"` // whether the envelope carries a recovery
	Message    *string         `json:"message"`
	Actions    []string        `json:"actions"`
	Details    json.RawMessage `json:"details"`
	RetryAfter *float64        `json:"retryAfter"`
	Fields     []string        `json:"fields"`   // validation_error: the field names, in order
	Contract   string          `json:"contract"` // validation_error: the awareness block's max severity, "" for none
	Payload    json.RawMessage `json:"payload"`  // success and warning: the JSON value of the last block
}

// loadScenario reads examples/scenario.json.
func loadScenario() ([]scenarioSession, error) {
	var file struct {
		Sessions []struct {
			Name  string `json:"name"`
			Calls []struct {
				Name      string          `json:"name"`
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
				Expect    expectation     `json:"expect"`
				Answer    struct {
					IsError bool     `json:"isError"`
					Content []string `json:"content"`
				} `json:"answer"`
			} `json:"calls"`
		} `json:"sessions"`
	}
	raw, err := os.ReadFile(scenarioPath)
	if err == nil {
		err = json.Unmarshal(raw, &file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenarioPath, err)
	}
	var out []scenarioSession
	for _, s := range file.Sessions {
		sess := scenarioSession{name: s.Name}
		for _, c := range s.Calls {
			args := ""
			if c.Arguments != nil {
				var b bytes.Buffer
				if err := json.Compact(&b, c.Arguments); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", scenarioPath, c.Name, err)
				}
				args = b.String()
			}
			sess.calls = append(sess.calls, call{name: c.Name, tool: c.Tool, args: args, expect: c.Expect,
				want: answer{IsError: c.Answer.IsError, Texts: c.Answer.Content}})
		}
		out = append(out, sess)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no session", scenarioPath)
	}
	return out, nil
}

// check verifies an answer against the call's expectation, reading its
// envelope with toolerr's parser.
func (c call) check(ctx context.Context, h *host.Host, a answer) error {
	e := c.expect
	if a.Err != "" {
		return fmt.Errorf("protocol error %s", a.Err)
	}
	if len(a.Texts) == 0 {
		return fmt.Errorf("no text content")
	}
	env, err := h.Parse(ctx, a.Texts[0])
	if err != nil {
		return err
	}
	switch e.Kind {
	case "success":
		if a.IsError || len(a.Texts) != 1 || env != nil {
			return fmt.Errorf("want one success block")
		}
		return samePayload(a.Texts[0], e.Payload)
	case "warning":
		if a.IsError || len(a.Texts) != 2 {
			return fmt.Errorf("want a warning block then the payload, isError false")
		}
		if env == nil || env.Kind != "tool_error" || env.Code != e.Code || env.Severity != e.Severity || env.IsError || (env.Recovery != nil) != e.Recovery {
			return fmt.Errorf("want a %s/%s warning, parsed %+v", e.Code, e.Severity, env)
		}
		return samePayload(a.Texts[1], e.Payload)
	case "tool_error":
		if !a.IsError || env == nil || env.Kind != "tool_error" || env.Code != e.Code || env.Severity != e.Severity {
			return fmt.Errorf("want %s/%s, parsed %s", e.Code, e.Severity, describe(env))
		}
		if hasRecovery := env.Recovery != nil && *env.Recovery != ""; hasRecovery != e.Recovery {
			return fmt.Errorf("recovery present: %v, want %v", hasRecovery, e.Recovery)
		}
		if e.Message != nil && env.Message != *e.Message {
			return fmt.Errorf("message %q, want %q", env.Message, *e.Message)
		}
		if e.Actions != nil && !slices.Equal(env.AvailableActions, e.Actions) {
			return fmt.Errorf("actions %q, want %q", env.AvailableActions, e.Actions)
		}
		if e.Details != nil {
			var want abi.Details
			if err := json.Unmarshal(e.Details, &want); err != nil {
				return err
			}
			if !reflect.DeepEqual(env.Details, want) {
				return fmt.Errorf("details %v, want %s", env.Details, e.Details)
			}
		}
		if e.RetryAfter != nil && (env.RetryAfter == nil || *env.RetryAfter != *e.RetryAfter) {
			return fmt.Errorf("retryAfter %v, want %v", env.RetryAfter, *e.RetryAfter)
		}
	case "validation_error":
		if !a.IsError || env == nil || env.Kind != "validation_error" || env.Action != c.tool || env.Recovery == nil {
			return fmt.Errorf("want a validation error, parsed %s", describe(env))
		}
		names := make([]string, len(env.Fields))
		for i, f := range env.Fields {
			names[i] = f.Name
		}
		if !slices.Equal(names, e.Fields) {
			return fmt.Errorf("fields %v, want %v", names, e.Fields)
		}
		got := ""
		if env.Contract != nil {
			got = env.Contract.MaxSeverity
		}
		if got != e.Contract {
			return fmt.Errorf("contract awareness %q, want %q", got, e.Contract)
		}
	default:
		return fmt.Errorf("%s: unknown kind %q", scenarioPath, e.Kind)
	}
	return nil
}

// samePayload checks that text is JSON with the value of want.
func samePayload(text string, want json.RawMessage) error {
	var got, w any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		return fmt.Errorf("payload is not JSON: %v", err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return fmt.Errorf("%s: payload: %v", scenarioPath, err)
	}
	if !reflect.DeepEqual(got, w) {
		return fmt.Errorf("payload %s, want %s", text, want)
	}
	return nil
}

func describe(env *abi.Envelope) string {
	if env == nil {
		return "no envelope"
	}
	return fmt.Sprintf("%s %s/%s", env.Kind, env.Code, env.Severity)
}

// sameAnswer says how got differs from want, or "" when they are the same.
func sameAnswer(got, want answer) string {
	if got.String() == want.String() {
		return ""
	}
	return fmt.Sprintf("--- got\n%s\n--- want\n%s", got, want)
}

package abi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Content is one block of an MCP CallToolResult. toolerr only produces and
// reads text blocks.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// CallToolResult is the MCP result every rendering export returns.
type CallToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError"`
}

// Text returns the text of the first text block, or "".
func (r *CallToolResult) Text() string {
	for _, c := range r.Content {
		if c.Type == "text" {
			return c.Text
		}
	}
	return ""
}

// Detail is one entry of a tool error's details. Value is a string, a
// boolean or a number (any Go integer or float type).
type Detail struct {
	Key   string
	Value any
}

// Details is an ordered set of details: the order given is the order
// rendered and the order parsed back, which a map could not keep.
type Details []Detail

// MarshalJSON writes the details as one JSON object, in order.
func (d Details) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, entry := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(entry.Key)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		switch entry.Value.(type) {
		case string, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		default:
			return nil, fmt.Errorf("details %q: value must be a string, number or boolean, got %T", entry.Key, entry.Value)
		}
		value, err := json.Marshal(entry.Value)
		if err != nil {
			return nil, fmt.Errorf("details %q: %w", entry.Key, err)
		}
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object keeping its member order; numbers
// decode as float64.
func (d *Details) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*d = nil
		return nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return fmt.Errorf("details must be a JSON object")
	}
	out := Details{}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := keyTok.(string)
		var value any
		if err := dec.Decode(&value); err != nil {
			return err
		}
		replaced := false
		for i := range out {
			if out[i].Key == key {
				out[i].Value, replaced = value, true
			}
		}
		if !replaced {
			out = append(out, Detail{key, value})
		}
	}
	*d = out
	return nil
}

// Get returns the value of key and whether it is there.
func (d Details) Get(key string) (any, bool) {
	for _, entry := range d {
		if entry.Key == key {
			return entry.Value, true
		}
	}
	return nil, false
}

// ToolErrorRequest is the request of tool_error.
type ToolErrorRequest struct {
	Code             string   `json:"code"`
	Message          string   `json:"message"`
	Suggestion       string   `json:"suggestion,omitempty"`
	AvailableActions []string `json:"availableActions,omitempty"`
	Severity         string   `json:"severity,omitempty"`
	Details          Details  `json:"details,omitempty"`
	RetryAfter       float64  `json:"retryAfter,omitempty"`
}

// SimpleErrorRequest is the request of simple_error; a nil Code renders no
// code attribute.
type SimpleErrorRequest struct {
	Message string  `json:"message"`
	Code    *string `json:"code,omitempty"`
}

// RequiredFieldRequest is the request of required_field.
type RequiredFieldRequest struct {
	Field string `json:"field"`
}

// InternalErrorRequest is the request of internal_error.
type InternalErrorRequest struct {
	Message string `json:"message"`
	Tool    string `json:"tool,omitempty"`
	Action  string `json:"action,omitempty"`
}

// UnknownToolRequest is the request of unknown_tool: Tool is the name a
// client called, Tools the server's tools, in its order.
type UnknownToolRequest struct {
	Tool  string   `json:"tool"`
	Tools []string `json:"tools"`
}

// RateLimitedRequest is the request of rate_limited.
type RateLimitedRequest struct {
	Max           float64 `json:"max"`
	WindowSeconds float64 `json:"windowSeconds"`
	RetryAfter    float64 `json:"retryAfter"`
	Key           string  `json:"key,omitempty"`
}

// ServerBusyRequest is the request of server_busy.
type ServerBusyRequest struct {
	Tool   string  `json:"tool"`
	Active float64 `json:"active"`
	Queued float64 `json:"queued"`
}

// EscapeRequest is the request of escape; Context is "content" or
// "attribute".
type EscapeRequest struct {
	Text    string `json:"text"`
	Context string `json:"context"`
}

// EscapeResponse is the response of escape.
type EscapeResponse struct {
	Text string `json:"text"`
}

// Delta is one change of a tool's contract.
type Delta struct {
	Category    string  `json:"category,omitempty"`
	Field       string  `json:"field"`
	Severity    string  `json:"severity"`
	Description string  `json:"description"`
	Before      *string `json:"before"`
	After       *string `json:"after"`
}

// Contract asks a validation error to tell the model what changed: give
// Deltas, or Lockfile and Tools for the module to diff.
type Contract struct {
	Tool                 string          `json:"tool"`
	Action               string          `json:"action,omitempty"`
	Deltas               []Delta         `json:"deltas,omitempty"`
	Lockfile             json.RawMessage `json:"lockfile,omitempty"`
	Tools                json.RawMessage `json:"tools,omitempty"`
	MaxDeltas            *int            `json:"maxDeltas,omitempty"`
	IncludeAllSeverities bool            `json:"includeAllSeverities,omitempty"`
}

// ContractDiff is the response of contract_diff: the deltas, most severe
// first; MaxSeverity is nil when there are none.
type ContractDiff struct {
	Deltas              []Delta `json:"deltas"`
	MaxSeverity         *string `json:"maxSeverity"`
	BackwardsCompatible bool    `json:"backwardsCompatible"`
}

// FormatValidationRequest is the request of format_validation. Issues are
// the validator's own objects, passed through as JSON.
type FormatValidationRequest struct {
	Action   string          `json:"action"`
	Issues   json.RawMessage `json:"issues"`
	Args     json.RawMessage `json:"args,omitempty"`
	Dialect  string          `json:"dialect,omitempty"`
	Contract *Contract       `json:"contract,omitempty"`
	// Schema is read with Dialect "jsonschema" only: the schema the errors
	// refer to, for the keyword values basic output leaves out.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ValidateRequest is the request of validate.
type ValidateRequest struct {
	Action   string          `json:"action"`
	Schema   json.RawMessage `json:"schema"`
	Args     json.RawMessage `json:"args"`
	Contract *Contract       `json:"contract,omitempty"`
}

// ValidateResponse is the response of validate: Result holds the
// <validation_error> when Valid is false.
type ValidateResponse struct {
	Valid  bool            `json:"valid"`
	Result *CallToolResult `json:"result,omitempty"`
}

// ParseRequest is the request of parse: Text, or Result.
type ParseRequest struct {
	Text   *string         `json:"text,omitempty"`
	Result *CallToolResult `json:"result,omitempty"`
}

// ParseResponse is the response of parse.
type ParseResponse struct {
	Envelope *Envelope `json:"envelope"`
}

// CheckResultRequest is the request of check_result.
type CheckResultRequest struct {
	Result *CallToolResult `json:"result"`
}

// CheckResultResponse is the response of check_result: nil for a result
// that is not an error, else the error a client raises, in the shape of an
// Envelope (Kind "" when the result held no envelope).
type CheckResultResponse struct {
	ClientError *Envelope `json:"clientError"`
}

// Verdicts of the stdio gate (gate's response).
const (
	GatePass    = "pass"
	GateRewrite = "rewrite"
	GateAnswer  = "answer"
	GateIgnore  = "ignore"
)

// GateHeadBytes is how much of a line over MaxRequestBytes a host sends to
// gate, after the line's length: enough to read its id, method and tool.
const GateHeadBytes = 64 << 10

// GateResponse is the response of gate: what a host does with one line
// from its client. Line is set for GateRewrite, Response (a JSON-RPC
// response, without its line feed) for GateAnswer, Reason for GateIgnore.
type GateResponse struct {
	Verdict  string `json:"verdict"`
	Line     string `json:"line,omitempty"`
	Response string `json:"response,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Envelope is a parsed <tool_error> (Kind "tool_error") or
// <validation_error> (Kind "validation_error"); the fields of the other
// kind are zero.
type Envelope struct {
	Kind string `json:"kind"`

	Code             string   `json:"code,omitempty"`
	Severity         string   `json:"severity,omitempty"`
	IsError          bool     `json:"isError,omitempty"`
	Message          string   `json:"message,omitempty"`
	Recovery         *string  `json:"recovery"`
	AvailableActions []string `json:"availableActions,omitempty"`
	Details          Details  `json:"details,omitempty"`
	RetryAfter       *float64 `json:"retryAfter,omitempty"`

	Action   string          `json:"action,omitempty"`
	Fields   []Field         `json:"fields,omitempty"`
	Contract *ParsedContract `json:"contract,omitempty"`
}

// Field is one <field> of a validation error.
type Field struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// ParsedContract is a <contract_awareness> block read back.
type ParsedContract struct {
	Tool        string  `json:"tool"`
	Action      string  `json:"action"`
	ChangeCount int     `json:"changeCount"`
	MaxSeverity string  `json:"maxSeverity"`
	Changes     []Delta `json:"changes"`
}

// Description is the response of describe.
type Description struct {
	ABIVersion string   `json:"abiVersion"`
	Version    string   `json:"version"`
	Exports    []string `json:"exports"`
	Codes      []string `json:"codes"`
	Severities []string `json:"severities"`
	Dialects   []string `json:"dialects"`
	Limits     struct {
		MaxRequestBytes int `json:"maxRequestBytes"`
		MaxDepth        int `json:"maxDepth"`
		MaxValues       int `json:"maxValues"`
	} `json:"limits"`
}

// Verdicts of server_failure.
const (
	FailurePass    = "pass"
	FailureRewrite = "rewrite"
)

// ServerFailureRequest is the request of server_failure: a server's failed
// answer to a tools/call of Tool, either the Result it gave (with isError
// true) or the JSON-RPC Error object it answered with. Each must be
// exactly one JSON value, as the server wrote it.
type ServerFailureRequest struct {
	Tool   string          `json:"tool"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// ServerFailureResponse is the response of server_failure: FailurePass
// (send the server's answer on as it is) or FailureRewrite, with the Code
// of the new envelope and the Result to send instead.
type ServerFailureResponse struct {
	Verdict string          `json:"verdict"`
	Code    string          `json:"code,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

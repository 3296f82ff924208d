package dispatch

import (
	"errors"
	"math"
	"strconv"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/contract"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

func callFormatValidation(c *call, r *request) *abi.Error {
	action := r.requiredString(r.obj, "", "action")
	dialect := r.stringOr(r.obj, "", "dialect", "zod")
	r.oneOf("", "dialect", dialect, validation.Dialects...)
	issuesValue := r.required(r.obj, "", "issues")
	if dialect == "jsonschema" && issuesValue.Get("errors") != nil {
		issuesValue = issuesValue.Get("errors") // a whole basic-output object
	}
	r.objects("issues", issuesValue)
	schema := r.optional(r.obj, "schema")
	if !r.check(schema == nil || dialect == "jsonschema", `"schema" is only read with dialect "jsonschema"`) {
		return r.err
	}
	args := r.obj.Get("args")
	idx := &jsonv.Index{}
	var issues []validation.Issue
	switch dialect {
	case "pydantic":
		issues = validation.PydanticIssues(issuesValue.Arr, args)
	case "jsonschema":
		issues = validation.JSONSchemaIssues(issuesValue.Arr, schema, args, idx)
	default:
		issues = c.issues[:0]
		for _, item := range issuesValue.Arr {
			issues = append(issues, validation.ZodIssue(item))
		}
		c.issues = issues
	}
	awareness := r.contract(action)
	if r.err != nil {
		return r.err
	}
	return c.validationError(r, r.size, action, issues, args, awareness, idx)
}

// validationError renders the validation error of a request of n bytes as
// the response's CallToolResult, or refuses one that would be longer than
// validation.OutputLimit allows.
func (c *call) validationError(r *request, n int, action string, issues []validation.Issue, args *jsonv.Value, awareness *contract.Awareness, idx *jsonv.Index) *abi.Error {
	var err error
	c.scratch, err = validation.AppendValidationError(c.scratch[:0], &c.line, action, issues, args, awareness, idx, validation.OutputLimit(n))
	if err != nil {
		return abi.Errorf(abi.CodeRequestTooLarge, "%s: %s", r.export, err.Error())
	}
	c.toolResult(c.scratchText(), true)
	return nil
}

// contract reads the optional "contract" member; the action defaults to
// the validation error's.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func (r *request) contract(action string) *contract.Awareness {
	c := r.typed(r.optional(r.obj, "contract"), jsonv.KindObject, "", "contract", "an object")
	if c == nil || r.known(c, "contract.", fieldsContract) != nil {
		return nil
	}
	a := &contract.Awareness{Action: action, MaxDeltas: contract.DefaultMaxDeltas}
	a.Tool = r.requiredString(c, "contract.", "tool")
	a.Action = r.stringOr(c, "contract.", "action", action)
	if m := r.optional(c, "maxDeltas"); m != nil {
		// Checked as a number, never through a conversion to int, which
		// wraps natively and saturates in wasm past the int range. Any
		// count above the number of deltas keeps them all, as the
		// reference's slice does.
		if r.check(m.Kind == jsonv.KindNumber && finite(m.Num) && m.Num >= 0 && m.Num == math.Trunc(m.Num), `"contract.maxDeltas" must be a non-negative integer`) {
			a.MaxDeltas = int(min(m.Num, math.MaxInt32))
		}
	}
	a.IncludeAllSeverities = r.optionalBool(c, "contract.", "includeAllSeverities")
	if r.err != nil {
		return nil
	}
	deltas := c.Get("deltas")
	if lock := c.Get("lockfile"); lock != nil || c.Get("tools") != nil {
		// The deltas are computed here: the locked contract against the
		// tools the server offers now.
		r.check(deltas == nil, `give "contract.deltas" or "contract.lockfile" with "contract.tools", not both`)
		before := r.contractOf("contract.lockfile", lock)
		after := r.contractOf("contract.tools", c.Get("tools"))
		a.Deltas = r.diff(before, after)
		return a
	}
	deltas = r.typed(r.required(c, "contract.", "deltas"), jsonv.KindArray, "contract.", "deltas", "an array")
	if deltas == nil {
		return nil
	}
	for i, dv := range deltas.Arr {
		prefix := "contract.deltas[" + strconv.Itoa(i) + "]."
		if r.typed(dv, jsonv.KindObject, prefix[:len(prefix)-1], "", "an object") == nil || r.known(dv, prefix, fieldsDelta) != nil {
			return nil
		}
		var d contract.Delta
		d.Category = r.stringOr(dv, prefix, "category", "")
		d.Field = r.requiredString(dv, prefix, "field")
		d.Severity = r.requiredString(dv, prefix, "severity")
		r.oneOf(prefix, "severity", d.Severity, contract.DeltaSeverities...)
		d.Description = r.requiredString(dv, prefix, "description")
		d.Before = r.optionalString(dv, prefix, "before")
		d.After = r.optionalString(dv, prefix, "after")
		if r.err != nil {
			return nil
		}
		a.Deltas = append(a.Deltas, d)
	}
	return a
}

// knownMember is the member of export's request whose value is not decoded
// when its text is known, and what knows it: validate's schema, once
// compiled (a server validates every call against the same few), so that
// its text found again is neither compiled nor decoded again. None ("")
// for the other exports.
func knownMember(export string) (string, jsonv.Known) {
	if export == "validate" {
		return "schema", validation.KnownSchema
	}
	return "", nil
}

func callValidate(c *call, r *request) *abi.Error {
	action := r.requiredString(r.obj, "", "action")
	schema := r.required(r.obj, "", "schema")
	if schema != nil && schema.Kind != jsonv.KindObject && schema.Kind != jsonv.KindBool {
		r.wrongType("schema", "an object or a boolean", schema)
	}
	args := r.required(r.obj, "", "args")
	awareness := r.contract(action)
	if r.err != nil {
		return r.err
	}
	idx := &jsonv.Index{}
	given := validation.Schema{Value: schema, Text: c.dec.TopText(r.obj, "schema"), Decoder: &c.schemaDec}
	if deferred, found := c.dec.Deferred(); schema != nil && schema == deferred {
		given.Value, given.Compiled = nil, found // a compiled schema's text, not decoded again
	}
	issues, verr := validation.Validate(given, args, idx, validation.WorkBudget(r.size))
	if verr != nil {
		var work *validation.TooMuchWorkError
		if errors.As(verr, &work) {
			return abi.Errorf(abi.CodeRequestTooLarge, "%s: %s", r.export, verr.Error())
		}
		return r.fail("%s", verr.Error())
	}
	if len(issues) == 0 {
		c.out = append(c.out, `{"valid":true}`...)
		return nil
	}
	c.out = append(c.out, `{"valid":false,"result":`...)
	if err := c.validationError(r, r.size, action, issues, args, awareness, idx); err != nil {
		return err
	}
	c.out = append(c.out, '}')
	return nil
}

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
	action, err := r.requiredString(r.obj, "", "action")
	if err != nil {
		return err
	}
	dialect := "zod"
	if d, err := r.optionalString(r.obj, "", "dialect"); err != nil {
		return err
	} else if d != nil {
		if err := r.oneOf("dialect", *d, validation.Dialects...); err != nil {
			return err
		}
		dialect = *d
	}
	issuesValue := r.obj.Get("issues")
	if issuesValue == nil {
		return r.fail(`"issues" is required`)
	}
	if dialect == "jsonschema" && issuesValue.Kind == jsonv.KindObject && issuesValue.Get("errors") != nil {
		issuesValue = issuesValue.Get("errors") // a whole basic-output object
	}
	if issuesValue.Kind != jsonv.KindArray {
		return r.wrongType("issues", "an array", issuesValue)
	}
	for i, item := range issuesValue.Arr {
		if item.Kind != jsonv.KindObject {
			return r.wrongType("issues["+strconv.Itoa(i)+"]", "an object", item)
		}
	}
	schema := present(r.obj, "schema")
	if schema != nil && dialect != "jsonschema" {
		return r.fail(`"schema" is only read with dialect "jsonschema"`)
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
	awareness, err := r.contract(action)
	if err != nil {
		return err
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
func (r *request) contract(action string) (*contract.Awareness, *abi.Error) {
	c := present(r.obj, "contract")
	if c == nil {
		return nil, nil
	}
	if c.Kind != jsonv.KindObject {
		return nil, r.wrongType("contract", "an object", c)
	}
	if err := r.known(c, "contract.", fieldsContract); err != nil {
		return nil, err
	}
	a := &contract.Awareness{Action: action, MaxDeltas: contract.DefaultMaxDeltas}
	var err *abi.Error
	if a.Tool, err = r.requiredString(c, "contract.", "tool"); err != nil {
		return nil, err
	}
	if s, err := r.optionalString(c, "contract.", "action"); err != nil {
		return nil, err
	} else if s != nil {
		a.Action = *s
	}
	if m := present(c, "maxDeltas"); m != nil {
		// Checked as a number, never through a conversion to int, which
		// wraps natively and saturates in wasm past the int range. Any
		// count above the number of deltas keeps them all, as the
		// reference's slice does.
		if m.Kind != jsonv.KindNumber || !finite(m.Num) || m.Num < 0 || m.Num != math.Trunc(m.Num) {
			return nil, r.fail(`"contract.maxDeltas" must be a non-negative integer`)
		}
		a.MaxDeltas = int(min(m.Num, math.MaxInt32))
	}
	if inc := present(c, "includeAllSeverities"); inc != nil {
		if inc.Kind != jsonv.KindBool {
			return nil, r.wrongType("contract.includeAllSeverities", "a boolean", inc)
		}
		a.IncludeAllSeverities = inc.Bool
	}
	deltas := c.Get("deltas")
	if lock := c.Get("lockfile"); lock != nil || c.Get("tools") != nil {
		// The deltas are computed here: the locked contract against the
		// tools the server offers now.
		if deltas != nil {
			return nil, r.fail(`give "contract.deltas" or "contract.lockfile" with "contract.tools", not both`)
		}
		before, err := r.contractOf("contract.lockfile", lock)
		if err != nil {
			return nil, err
		}
		after, err := r.contractOf("contract.tools", c.Get("tools"))
		if err != nil {
			return nil, err
		}
		if a.Deltas, err = r.diff(before, after); err != nil {
			return nil, err
		}
		return a, nil
	}
	if deltas == nil {
		return nil, r.fail(`"contract.deltas" is required`)
	}
	if deltas.Kind != jsonv.KindArray {
		return nil, r.wrongType("contract.deltas", "an array", deltas)
	}
	for i, dv := range deltas.Arr {
		prefix := "contract.deltas[" + strconv.Itoa(i) + "]."
		if dv.Kind != jsonv.KindObject {
			return nil, r.wrongType(prefix[:len(prefix)-1], "an object", dv)
		}
		if err := r.known(dv, prefix, fieldsDelta); err != nil {
			return nil, err
		}
		var d contract.Delta
		if s, err := r.optionalString(dv, prefix, "category"); err != nil {
			return nil, err
		} else if s != nil {
			d.Category = *s
		}
		if d.Field, err = r.requiredString(dv, prefix, "field"); err != nil {
			return nil, err
		}
		if d.Severity, err = r.requiredString(dv, prefix, "severity"); err != nil {
			return nil, err
		}
		if err := r.oneOf(prefix+"severity", d.Severity, contract.DeltaSeverities...); err != nil {
			return nil, err
		}
		if d.Description, err = r.requiredString(dv, prefix, "description"); err != nil {
			return nil, err
		}
		if d.Before, err = r.optionalString(dv, prefix, "before"); err != nil {
			return nil, err
		}
		if d.After, err = r.optionalString(dv, prefix, "after"); err != nil {
			return nil, err
		}
		a.Deltas = append(a.Deltas, d)
	}
	return a, nil
}

func callValidate(c *call, r *request) *abi.Error {
	action, err := r.requiredString(r.obj, "", "action")
	if err != nil {
		return err
	}
	schema := r.obj.Get("schema")
	if schema == nil {
		return r.fail(`"schema" is required`)
	}
	if schema.Kind != jsonv.KindObject && schema.Kind != jsonv.KindBool {
		return r.wrongType("schema", "an object or a boolean", schema)
	}
	args := r.obj.Get("args")
	if args == nil {
		return r.fail(`"args" is required`)
	}
	awareness, err := r.contract(action)
	if err != nil {
		return err
	}
	idx := &jsonv.Index{}
	issues, verr := validation.Validate(schema, args, idx, validation.WorkBudget(r.size))
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

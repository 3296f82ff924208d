package dispatch

import (
	"errors"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// request is a decoded ABI request: a JSON object whose members are checked
// against the fields its export knows.
type request struct {
	export string
	obj    *jsonv.Value
	// size is the request's length in bytes, which work budgets grow with.
	size int
}

// notAnObject is decode's answer to input that is not one JSON object (v,
// or the decoder's err). It is a function of its own so that decode
// itself gives export to nothing that keeps it: TinyGo's build copied
// export to the heap on every call, for these answers alone.
func notAnObject(export string, v *jsonv.Value, err error) *abi.Error {
	var ce *jsonv.CountError
	var de *jsonv.DepthError
	switch {
	case errors.As(err, &ce):
		return abi.Errorf(abi.CodeRequestTooLarge, "%s: request holds %s", export, ce.Error())
	case errors.As(err, &de):
		return abi.Errorf(abi.CodeInvalidRequest, "%s: request has %s", export, de.Error())
	case err != nil:
		return abi.Errorf(abi.CodeInvalidRequest, "%s: request is not valid JSON: %s", export, err.Error())
	}
	return abi.Errorf(abi.CodeInvalidRequest, "%s: request must be a JSON object, got %s", export, v.Kind)
}

// decode parses input as the request of export, rejecting oversize input,
// invalid JSON, non-objects and unknown fields. The request's values live
// until the call ends.
func (c *call) decode(export string, input []byte, fields []string) (*request, *abi.Error) {
	if len(input) > abi.MaxRequestBytes {
		return nil, abi.Errorf(abi.CodeRequestTooLarge, "%s: request is %d bytes, over the limit of %d", export, len(input), abi.MaxRequestBytes)
	}
	v, err := c.dec.Parse(input, abi.MaxDepth, abi.MaxValues)
	if err != nil || v.Kind != jsonv.KindObject {
		return nil, notAnObject(export, v, err)
	}
	c.req = request{export: export, obj: v, size: len(input)}
	r := &c.req
	if err := r.known(v, "", fields); err != nil {
		return nil, err
	}
	return r, nil
}

// known rejects members of obj not in fields; prefix names the object.
func (r *request) known(obj *jsonv.Value, prefix string, fields []string) *abi.Error {
	for _, m := range obj.Members {
		found := false
		for _, f := range fields {
			if m.Key == f {
				found = true
				break
			}
		}
		if !found && len(fields) == 0 {
			return r.fail("unknown field %s (it takes no fields)", strconv.Quote(prefix+m.Key))
		}
		if !found {
			return r.fail("unknown field %s (known: %s)", strconv.Quote(prefix+m.Key), strings.Join(fields, ", "))
		}
	}
	return nil
}

func (r *request) fail(format string, args ...any) *abi.Error {
	return abi.Errorf(abi.CodeInvalidRequest, r.export+": "+format, args...)
}

func (r *request) wrongType(name, want string, got *jsonv.Value) *abi.Error {
	return r.fail("%s must be %s, got %s", strconv.Quote(name), want, got.Kind)
}

// present returns the member name of obj, treating null as absent.
func present(obj *jsonv.Value, name string) *jsonv.Value {
	v := obj.Get(name)
	if v == nil || v.Kind == jsonv.KindNull {
		return nil
	}
	return v
}

// requiredString reads a string member that must be there.
func (r *request) requiredString(obj *jsonv.Value, prefix, name string) (string, *abi.Error) {
	v := obj.Get(name)
	if v == nil {
		return "", r.fail("%s is required", strconv.Quote(prefix+name))
	}
	if v.Kind != jsonv.KindString {
		return "", r.wrongType(prefix+name, "a string", v)
	}
	return v.Str, nil
}

// optionalString reads a string member that may be absent or null.
func (r *request) optionalString(obj *jsonv.Value, prefix, name string) (*string, *abi.Error) {
	v := present(obj, name)
	if v == nil {
		return nil, nil
	}
	if v.Kind != jsonv.KindString {
		return nil, r.wrongType(prefix+name, "a string", v)
	}
	return &v.Str, nil
}

// requiredNumber reads a finite number member that must be there.
func (r *request) requiredNumber(obj *jsonv.Value, name string) (float64, *abi.Error) {
	v := obj.Get(name)
	if v == nil {
		return 0, r.fail("%s is required", strconv.Quote(name))
	}
	if v.Kind != jsonv.KindNumber {
		return 0, r.wrongType(name, "a number", v)
	}
	if !finite(v.Num) {
		return 0, r.fail("%s must be a finite number", strconv.Quote(name))
	}
	return v.Num, nil
}

func finite(f float64) bool {
	return f == f && f <= 1.7976931348623157e308 && f >= -1.7976931348623157e308
}

// oneOf checks that s is one of allowed.
func (r *request) oneOf(name, s string, allowed ...string) *abi.Error {
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	return r.fail("%s must be one of %s, got %s", strconv.Quote(name), strings.Join(quoted, ", "), strconv.Quote(s))
}

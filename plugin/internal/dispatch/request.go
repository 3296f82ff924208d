package dispatch

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// request is a decoded ABI request: a JSON object whose members are checked
// against the fields its export knows.
//
// Its readers keep the first error they meet: once err is set, every
// reader returns a zero value and checks nothing, so that a call reads its
// members in order and asks for err once where it must stop, and the
// error it reports is always the first check that failed.
type request struct {
	export string
	obj    *jsonv.Value
	// size is the request's length in bytes, which work budgets grow with.
	size int
	// err is the request's first error, or nil.
	err *abi.Error
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
	key, known := knownMember(export)
	v, err := c.dec.ParseKnowing(input, abi.MaxDepth, abi.MaxValues, key, known)
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

// record keeps err as the request's error unless it has one already, and
// returns the request's error.
func (r *request) record(err *abi.Error) *abi.Error {
	if r.err == nil {
		r.err = err
	}
	return r.err
}

// fail records an INVALID_REQUEST error (see record), made only when the
// request has no error yet.
func (r *request) fail(format string, args ...any) *abi.Error {
	if r.err != nil {
		return r.err
	}
	return r.record(abi.Errorf(abi.CodeInvalidRequest, r.export+": "+format, args...))
}

// check records message as the request's error when ok is false, and
// reports whether the request has no error. ok is evaluated before the
// call: after an error it may be made of zero values, which check ignores.
func (r *request) check(ok bool, message string) bool {
	if !ok {
		r.fail("%s", message)
	}
	return r.err == nil
}

func (r *request) wrongType(name, want string, got *jsonv.Value) *abi.Error {
	return r.fail("%s must be %s, got %s", strconv.Quote(name), want, got.Kind)
}

// required returns the member name of obj (which prefix names), or nil
// after recording that it is required.
func (r *request) required(obj *jsonv.Value, prefix, name string) *jsonv.Value {
	if r.err != nil {
		return nil
	}
	v := obj.Get(name)
	if v == nil {
		r.fail("%s is required", strconv.Quote(prefix+name))
	}
	return v
}

// optional returns the member name of obj, or nil when it is absent or
// null.
func (r *request) optional(obj *jsonv.Value, name string) *jsonv.Value {
	if r.err != nil {
		return nil
	}
	v := obj.Get(name)
	if v == nil || v.Kind == jsonv.KindNull {
		return nil
	}
	return v
}

// typed returns v, member prefix+name, when it is of kind; else nil, after
// recording that it must be want unless v is nil.
func (r *request) typed(v *jsonv.Value, kind jsonv.Kind, prefix, name, want string) *jsonv.Value {
	if v == nil || r.err != nil {
		return nil
	}
	if v.Kind != kind {
		r.wrongType(prefix+name, want, v)
		return nil
	}
	return v
}

// requiredString reads a string member that must be there.
func (r *request) requiredString(obj *jsonv.Value, prefix, name string) string {
	if v := r.typed(r.required(obj, prefix, name), jsonv.KindString, prefix, name, "a string"); v != nil {
		return v.Str
	}
	return ""
}

// optionalString reads a string member that may be absent or null (nil).
func (r *request) optionalString(obj *jsonv.Value, prefix, name string) *string {
	if v := r.typed(r.optional(obj, name), jsonv.KindString, prefix, name, "a string"); v != nil {
		return &v.Str
	}
	return nil
}

// stringOr reads a string member that may be absent or null (def).
func (r *request) stringOr(obj *jsonv.Value, prefix, name, def string) string {
	if s := r.optionalString(obj, prefix, name); s != nil {
		return *s
	}
	return def
}

// optionalBool reads a boolean member that may be absent or null (false).
func (r *request) optionalBool(obj *jsonv.Value, prefix, name string) bool {
	v := r.typed(r.optional(obj, name), jsonv.KindBool, prefix, name, "a boolean")
	return v != nil && v.Bool
}

// requiredNumber reads a finite number member of the request that must be
// there.
func (r *request) requiredNumber(name string) float64 {
	v := r.typed(r.required(r.obj, "", name), jsonv.KindNumber, "", name, "a number")
	if v == nil {
		return 0
	}
	if !finite(v.Num) {
		r.fail("%s must be a finite number", strconv.Quote(name))
		return 0
	}
	return v.Num
}

func finite(f float64) bool {
	return f == f && f <= 1.7976931348623157e308 && f >= -1.7976931348623157e308
}

// appendStrings appends to dst the items of a, member name, an array of
// strings; a nil a is an absent member.
func (r *request) appendStrings(dst []string, name string, a *jsonv.Value) []string {
	if r.typed(a, jsonv.KindArray, "", name, "an array of strings") == nil {
		return dst
	}
	dst = slices.Grow(dst, len(a.Arr))
	for i, item := range a.Arr {
		if item.Kind != jsonv.KindString {
			r.wrongType(name+"["+strconv.Itoa(i)+"]", "a string", item)
			return dst
		}
		dst = append(dst, item.Str)
	}
	return dst
}

// objects checks that v, member name, is an array of objects.
func (r *request) objects(name string, v *jsonv.Value) {
	if r.typed(v, jsonv.KindArray, "", name, "an array") == nil {
		return
	}
	for i, item := range v.Arr {
		if item.Kind != jsonv.KindObject {
			r.wrongType(name+"["+strconv.Itoa(i)+"]", "an object", item)
			return
		}
	}
}

// oneOf checks that s, member prefix+name, is one of allowed.
func (r *request) oneOf(prefix, name, s string, allowed ...string) {
	if r.err != nil {
		return
	}
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	r.fail("%s must be one of %s, got %s", strconv.Quote(prefix+name), strings.Join(quoted, ", "), strconv.Quote(s))
}

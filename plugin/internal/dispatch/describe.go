package dispatch

import (
	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

func callDescribe(c *call, r *request) *abi.Error {
	memory := r.optionalBool(r.obj, "", "memory")
	if r.err != nil {
		return r.err
	}
	w := jsonv.Writer{B: c.out}
	if memory {
		// The hosts' policy retires an instance by what its memory grew
		// to; only the module can tell every host that.
		w.RawNum(`{"memoryPages":`, float64(memoryPages()))
		w.Byte('}')
		c.out = w.B
		return nil
	}
	w.RawStr(`{"abiVersion":`, abi.Version)
	w.RawStr(`,"version":`, abi.ModuleVersion)
	w.Raw(`,"exports":[`)
	for i, e := range abi.Exports {
		w.Comma(i)
		w.Str(e.Name)
	}
	w.Raw(`],"codes":`)
	w.Strings(abi.CanonicalCodes)
	w.Raw(`,"severities":`)
	w.Strings(abi.Severities)
	w.Raw(`,"dialects":`)
	w.Strings(validation.Dialects)
	w.RawNum(`,"limits":{"maxRequestBytes":`, abi.MaxRequestBytes)
	w.RawNum(`,"maxDepth":`, abi.MaxDepth)
	w.RawNum(`,"maxValues":`, abi.MaxValues)
	w.Raw("}}")
	c.out = w.B
	return nil
}

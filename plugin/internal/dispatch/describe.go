package dispatch

import (
	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

func callDescribe(c *call, input []byte) *abi.Error {
	if _, err := c.decode("describe", input); err != nil {
		return err
	}
	w := jsonv.Writer{B: c.out}
	w.Raw(`{"abiVersion":`)
	w.Str(abi.Version)
	w.Raw(`,"version":`)
	w.Str(abi.ModuleVersion)
	w.Raw(`,"exports":[`)
	for i, e := range abi.Exports {
		if i > 0 {
			w.Byte(',')
		}
		w.Str(e.Name)
	}
	w.Raw(`],"codes":[`)
	for i, c := range abi.CanonicalCodes {
		if i > 0 {
			w.Byte(',')
		}
		w.Str(c)
	}
	w.Raw(`],"severities":[`)
	for i, s := range abi.Severities {
		if i > 0 {
			w.Byte(',')
		}
		w.Str(s)
	}
	w.Raw(`],"dialects":[`)
	for i, d := range validation.Dialects {
		if i > 0 {
			w.Byte(',')
		}
		w.Str(d)
	}
	w.Raw(`],"limits":{"maxRequestBytes":`)
	w.Num(abi.MaxRequestBytes)
	w.Raw(`,"maxDepth":`)
	w.Num(abi.MaxDepth)
	w.Raw(`,"maxValues":`)
	w.Num(abi.MaxValues)
	w.Raw("}}")
	c.out = w.B
	return nil
}

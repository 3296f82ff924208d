package dispatch

import (
	"slices"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/contract"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

func callContractLock(c *call, r *request) *abi.Error {
	l := r.contractOf("tools", r.obj.Get("tools"))
	if r.err != nil {
		return r.err
	}
	c.out = l.AppendJSON(c.out)
	return nil
}

func writeDeltas(w *jsonv.Writer, deltas []contract.Delta) {
	// The room they take, escapes aside, at once: a large diff's answer
	// grown by doubling would hold up to twice its size at the end.
	room := 2
	for _, d := range deltas {
		room += 100 + len(d.Category) + len(d.Field) + len(d.Severity) + len(d.Description)
		if d.Before != nil {
			room += len(*d.Before)
		}
		if d.After != nil {
			room += len(*d.After)
		}
	}
	w.B = slices.Grow(w.B, room)
	w.Byte('[')
	for i, d := range deltas {
		w.Comma(i)
		w.RawStr(`{"category":`, d.Category)
		w.RawStr(`,"field":`, d.Field)
		w.RawStr(`,"severity":`, d.Severity)
		w.RawStr(`,"description":`, d.Description)
		writeBeforeAfter(w, d.Before, d.After)
	}
	w.Byte(']')
}

func callContractDiff(c *call, r *request) *abi.Error {
	before := r.contractOf("before", r.obj.Get("before"))
	after := r.contractOf("after", r.obj.Get("after"))
	deltas := r.diff(before, after)
	if r.err != nil {
		return r.err
	}
	w := jsonv.Writer{B: c.out}
	w.Raw(`{"deltas":`)
	writeDeltas(&w, deltas)
	w.Raw(`,"maxSeverity":`)
	if sev := contract.MaxSeverity(deltas); sev == "" {
		w.Raw("null")
	} else {
		w.Str(sev)
	}
	w.Raw(`,"backwardsCompatible":`)
	w.Boolean(contract.MaxSeverity(deltas) != "BREAKING")
	w.Byte('}')
	c.out = w.B
	return nil
}

// diff is contract.CachedDiff, its budget's refusal as REQUEST_TOO_LARGE.
func (r *request) diff(before, after *contract.Lockfile) []contract.Delta {
	if r.err != nil {
		return nil
	}
	deltas, err := contract.CachedDiff(before, after)
	if err != nil {
		r.record(abi.Errorf(abi.CodeRequestTooLarge, "%s: %s", r.export, err.Error()))
		return nil
	}
	return deltas
}

// contractOf reads a lockfile, a tools array or a tools/list result from
// the request member field.
func (r *request) contractOf(field string, v *jsonv.Value) *contract.Lockfile {
	if r.err != nil {
		return nil
	}
	l, err := contract.ReadContract(field, v)
	if err != nil {
		r.fail("%s", err.Error())
	}
	return l
}

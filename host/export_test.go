package host

import "context"

// LiveInstances reports how many instances h holds now, idle or busy: for
// the tests of package host_test, which check that none is leaked.
func LiveInstances(h *Host) int { return h.liveInstances() }

// ChecksEngine is the engine that runs h's per-message checks (Heal's
// argument check, the stdio gate).
func ChecksEngine(h *Host) Engine { return h.checker().kind }

// NewInterpreted is New with the wazero engine on wazero's interpreter
// alone, the first tier of a start with an empty cache (Tiered): the
// vector test holds it to every vector too.
func NewInterpreted(ctx context.Context, opts Options) (*Host, error) {
	opts.Engine = Wazero
	return newHost(ctx, opts, openInterpreted)
}

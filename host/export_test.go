package host

// LiveInstances reports how many instances h holds now, idle or busy: for
// the tests of package host_test, which check that none is leaked.
func LiveInstances(h *Host) int { return h.liveInstances() }

// ChecksEngine is the engine that runs h's per-message checks (Heal's
// argument check, the stdio gate).
func ChecksEngine(h *Host) Engine { return h.checker().kind }

package host

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory backs an instance's linear memory outside the Go heap where
// the system allows (linearmem_unix.go): the whole maximum is reserved as
// address space at once and the pages are touched only as the module grows
// into them, so a growth never copies the memory, and the Go garbage
// collector neither counts it as live heap (which let the heap grow by as
// much again before each collection: some 6 MB of a process's RSS) nor
// keeps a grown memory's old copy. Where reserving fails it is an ordinary
// slice, grown the way wazero grows its own.
//
// Unmapping must wait for a call still running in the instance: wazero
// frees the memory when its module closes, and closing a runtime closes
// every module, that of a call abandoned at its deadline too (it runs on
// to its end; Host.callWatched). A Host closes its runtime only once its
// last instance is dropped (Host.closeEngine); besides, an instance marks
// its calls (enter, leave) and a Free during one is done when it leaves.
type linearMemory struct {
	buf  []byte // the reservation (mapped), or the slice grown so far
	max  uint64
	mmap bool

	mu        sync.Mutex
	calls     int
	freeLater bool
}

// Reallocate implements experimental.LinearMemory.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) { // only a slice, never the reservation
		grown := make([]byte, size, max(size, min(m.max, 2*uint64(cap(m.buf)))))
		copy(grown, m.buf)
		m.buf = grown
	}
	return m.buf[:size]
}

// Free implements experimental.LinearMemory.
func (m *linearMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls > 0 {
		m.freeLater = true
		return
	}
	m.release()
}

func (m *linearMemory) enter() {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
}

func (m *linearMemory) leave() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls--; m.calls == 0 && m.freeLater {
		m.release()
	}
}

// release gives the memory back (m.mu held).
func (m *linearMemory) release() {
	if m.mmap && m.buf != nil {
		unmap(m.buf)
	}
	m.buf, m.freeLater = nil, false
}

// allocatorFor returns a wazero memory allocator that records the memory
// it makes in *made, for the instance being made.
func allocatorFor(made **linearMemory) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capBytes, maxBytes uint64) experimental.LinearMemory {
		m := &linearMemory{max: maxBytes}
		if buf, ok := reserve(maxBytes); ok {
			m.buf, m.mmap = buf, true
		} else {
			m.buf = make([]byte, 0, capBytes)
		}
		*made = m
		return m
	})
}

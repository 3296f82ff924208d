//go:build unix

package host

import "syscall"

// reserve maps size bytes of zeroed memory, private to this process and
// with no swap reserved for them: only the pages the module touches take
// memory. Only a 64-bit process reserves: a 32-bit one has too little
// address space for a cap per instance.
func reserve(size uint64) ([]byte, bool) {
	if size == 0 || size > 1<<32 || ^uint(0)>>32 == 0 {
		return nil, false
	}
	buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return buf, true
}

func unmap(buf []byte) { _ = syscall.Munmap(buf) }

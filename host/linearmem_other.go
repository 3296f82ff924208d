//go:build !unix

package host

// reserve is not available here: linear memory is an ordinary slice.
func reserve(uint64) ([]byte, bool) { return nil, false }

func unmap([]byte) {}

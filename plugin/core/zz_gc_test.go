package core

import (
	"runtime"
	"testing"
	"time"
)

func TestZZGC(t *testing.T) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := time.Now()
	for i := 0; i < 10; i++ {
		runtime.GC()
	}
	t.Logf("gc %v per cycle; heapAlloc %d, heapSys %d, sys %d, numGC %d, nextGC %d", time.Since(start)/10, m.HeapAlloc, m.HeapSys, m.Sys, m.NumGC, m.NextGC)
}

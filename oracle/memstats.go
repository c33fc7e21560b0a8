package main

// Memory accounting of a long run (`oracle run -memevery N -memprofile FILE`): the heap after a
// collection and the goroutine count, to see whether Karpenter state outlives its scenario.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

func printMem(done, passed, failed int) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Fprintf(os.Stderr, "mem: %d scenarios (%d passed, %d failed): heap in use %d MiB, sys %d MiB, %d goroutines\n",
		done, passed, failed, m.HeapInuse>>20, m.Sys>>20, runtime.NumGoroutine())
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}

// startCPUProfile: `oracle run -cpuprofile FILE` (where a long run spends its time).
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// Writes core/src/scheduling/testdata/go_sort_slice.txt: how Go's sort.Slice permutes indices
// sorted by small integer keys (many ties). nodecast's port (core/src/scheduling/gosort.rs)
// must reproduce every line. Run with the Go Karpenter is built with:
//
//	GOTOOLCHAIN=go1.27.3 go run ./tools/go_sort_fixture > core/src/scheduling/testdata/go_sort_slice.txt
package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
)

type lcg uint64

func (r *lcg) next(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r>>33) % uint64(n))
}

func emit(keys []int) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	var k, o []string
	for i := range keys {
		k = append(k, fmt.Sprint(keys[i]))
		o = append(o, fmt.Sprint(idx[i]))
	}
	fmt.Printf("%s | %s\n", strings.Join(k, " "), strings.Join(o, " "))
}

func main() {
	fmt.Printf("# sort.Slice permutations, %s; keys | indices in sorted order\n", runtime.Version())
	r := lcg(7)
	// Random keys with few distinct values.
	for n := 0; n <= 130; n++ {
		for _, distinct := range []int{1, 2, 3, 5, n + 1} {
			keys := make([]int, n)
			for i := range keys {
				keys[i] = r.next(distinct)
			}
			emit(keys)
		}
	}
	// Sorted runs with one element bumped by one (what Karpenter's slice looks like after a pod
	// joins a NodeClaim), and sorted runs with a 1 appended (a new NodeClaim).
	for _, n := range []int{13, 20, 49, 50, 51, 64, 100, 199} {
		for rep := 0; rep < 6; rep++ {
			keys := make([]int, n)
			v := 1
			for i := range keys {
				if r.next(4) == 0 {
					v++
				}
				keys[i] = v
			}
			bumped := append([]int(nil), keys...)
			bumped[r.next(n)]++
			emit(bumped)
			emit(append(append([]int(nil), keys...), 1))
		}
	}
	// Patterns that reach the reversal, pattern breaking and heap sort.
	for _, n := range []int{60, 257, 1000} {
		desc := make([]int, n)
		pipe := make([]int, n)
		saw := make([]int, n)
		for i := range desc {
			desc[i] = n - i
			pipe[i] = min(i, n-i)
			saw[i] = i % 7
		}
		emit(desc)
		emit(pipe)
		emit(saw)
	}
}

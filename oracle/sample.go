package main

// `oracle run -sample KIND=SEEDS`: a fixed list of generated scenarios (make oracle-test samples
// the newer generators' seeds this way, so its gate holds scenarios known to agree while the
// others are reported by their own targets).

import (
	"fmt"
	"strconv"
	"strings"
)

type seedSample struct {
	kind  string
	seeds []int64
}

type seedSamples []seedSample

var generatorKinds = []string{"provision", "disrupt", "gates", "reserved", "rdisrupt", "drift", "sdrift", "prices", "pdisrupt", "dra", "dradisrupt", "repair", "static", "buffer"}

func (s *seedSamples) String() string {
	var parts []string
	for _, x := range *s {
		parts = append(parts, fmt.Sprintf("%s=%d seeds", x.kind, len(x.seeds)))
	}
	return strings.Join(parts, " ")
}

// Set parses KIND=SEEDS, SEEDS a comma-separated list of seeds and inclusive ranges A-B.
func (s *seedSamples) Set(v string) error {
	kind, list, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("%q: expected KIND=SEEDS", v)
	}
	known := false
	for _, k := range generatorKinds {
		known = known || k == kind
	}
	if !known {
		return fmt.Errorf("%q: unknown kind %q (one of %s)", v, kind, strings.Join(generatorKinds, ", "))
	}
	smp := seedSample{kind: kind}
	for _, part := range strings.Split(list, ",") {
		a, b, isRange := strings.Cut(strings.TrimSpace(part), "-")
		lo, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return fmt.Errorf("%q: seed %q is not a number", v, part)
		}
		hi := lo
		if isRange {
			if hi, err = strconv.ParseInt(b, 10, 64); err != nil || hi < lo {
				return fmt.Errorf("%q: %q is not a range A-B with A <= B", v, part)
			}
			if hi-lo >= 100000 {
				return fmt.Errorf("%q: range %q holds more than 100,000 seeds", v, part)
			}
		}
		for sd := lo; sd <= hi; sd++ {
			smp.seeds = append(smp.seeds, sd)
		}
	}
	*s = append(*s, smp)
	return nil
}

package main

// Classifying a difference between nodecast and the running controller needs to know two things
// about Karpenter's own code on the same input (one pass, in process): does it ever give
// nodecast's answer, and does it ever give the controller's? Karpenter breaks some ties by Go map
// iteration (the zone of a topology-spread NodeClaim, candidates of equal savings), so one input
// has several Karpenter answers; when both answers are among them, the controller and nodecast
// made two of Karpenter's own choices, a tie by the oracle's rule. Asking only the first question
// (as `check` does for `oracle run`) stops at the first run that gives nodecast's answer and
// cannot tell a tie from batching or timing.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// twoWays: how the in-process Karpenter answers an input against nodecast's answer and the
// controller's. NodecastRun / ControllerRun: the first run (1-based) that gave that answer, 0
// when none of Runs did. RandomUIDs: the controller's answer came only once the pending pods had
// random UIDs.
type twoWays struct {
	NodecastRun, ControllerRun, Runs int
	RandomUIDs                       bool
	Err                              string
}

// randomPendingUIDs: the in-process Karpenter gives pending pods random UIDs (karpenter.go).
// Karpenter's queue orders pods of equal CPU, memory and creation second by UID
// (byCPUAndMemoryDescending); an API server's UIDs are random, so the running controller takes
// such pods in an order no input states, while nodecast and the in-process oracle use the
// scenario's (`<namespace>/<name>` when it names none).
var randomPendingUIDs bool

// randomUIDRuns: in-process runs with random UIDs (each run a new order of equal pods).
const randomUIDRuns = 100

// inProcessTwoWays runs Karpenter on r up to `runs` times, or `maxRuns` once its answers were
// seen to vary, until it has given both nodecast's answer and `ctl` (a *ProvisionAnswer or
// *DisruptAnswer of the controller).
func inProcessTwoWays(r NodecastRecord, cats map[int]*Catalog, ctl any, runs, maxRuns int) twoWays {
	w := inProcessRuns(r, cats, ctl, runs, maxRuns)
	if w.Err != "" || w.ControllerRun > 0 || w.NodecastRun == 0 {
		return w
	}
	// The scenario's UIDs never give the controller's answer: try the API server's kind.
	randomPendingUIDs = true
	defer func() { randomPendingUIDs = false }()
	if again := inProcessRuns(r, cats, ctl, randomUIDRuns, randomUIDRuns); again.Err == "" && again.ControllerRun > 0 {
		w.ControllerRun, w.RandomUIDs = again.ControllerRun, true
		w.Runs += again.Runs
	}
	return w
}

func inProcessRuns(r NodecastRecord, cats map[int]*Catalog, ctl any, runs, maxRuns int) twoWays {
	var w twoWays
	id := catalogID(r)
	answers := map[string]bool{}
	for i := 0; i < runs; i++ {
		k, err := karpenterSide(r, cats[id], id)
		if err != nil {
			w.Err = err.Error()
			return w
		}
		w.Runs = i + 1
		if c, _, _ := compare(r, k); c == "" && w.NodecastRun == 0 {
			w.NodecastRun = i + 1
		}
		if w.ControllerRun == 0 && sameAsController(k, ctl) {
			w.ControllerRun = i + 1
		}
		if w.NodecastRun > 0 && w.ControllerRun > 0 {
			return w
		}
		if b, err := json.Marshal(k); err == nil {
			answers[string(b)] = true
		}
		if i+1 == runs && runs < maxRuns && (len(answers) > 1 || disclosedTies(r) > 0) {
			runs = maxRuns
		}
	}
	return w
}

// sameAsController: the in-process answer k could be what the controller did: the oracle's rules
// with the controller's answer in nodecast's place (asLaunchSet), k as Karpenter's.
func sameAsController(k, ctl any) bool {
	switch a := k.(type) {
	case *ProvisionAnswer:
		if c, ok := ctl.(*ProvisionAnswer); ok && c != nil {
			class, _ := CompareProvision(asLaunchSet(c), a)
			return class == ""
		}
	case *DisruptAnswer:
		if c, ok := ctl.(*DisruptAnswer); ok && c != nil {
			if a.Nodes == nil {
				a.Nodes = []string{}
			}
			class, _ := CompareDisrupt(asLaunchSetDisrupt(c), a)
			return class == ""
		}
	}
	return false
}

// asLaunchSet: the controller's answer with each NodeClaim's launch taken from its own launch
// set (the first type and zone by name), not the recording provider's pick. Two NodeClaims
// with the same requirements have the same launch set, but Karpenter's fake provider launches
// by its own rule (it may take on-demand where the AWS provider takes spot), so its pick would
// never fall in an in-process NodeClaim's set.
func asLaunchSet(c *ProvisionAnswer) *ProvisionAnswer {
	out := *c
	out.Claims = make([]Claim, len(c.Claims))
	for i, cl := range c.Claims {
		out.Claims[i] = claimAsLaunchSet(cl)
	}
	return &out
}

func asLaunchSetDisrupt(c *DisruptAnswer) *DisruptAnswer {
	out := *c
	if c.Replacement != nil {
		r := claimAsLaunchSet(*c.Replacement)
		out.Replacement = &r
	}
	return &out
}

func claimAsLaunchSet(c Claim) Claim {
	if c.Launch == nil || len(c.Launch.Types) == 0 {
		return c
	}
	types := make([]string, 0, len(c.Launch.Types))
	for t := range c.Launch.Types {
		types = append(types, t)
	}
	sort.Strings(types)
	zones := append([]string(nil), c.Launch.Types[types[0]]...)
	sort.Strings(zones)
	if len(zones) == 0 {
		return c
	}
	c.InstanceType, c.Zone, c.CapacityType = types[0], zones[0], c.Launch.CapacityType
	c.ReservationID = c.Launch.Reservations[c.InstanceType+"/"+c.Zone]
	return c
}

// verdict of a disagreement from the two questions.
func (w twoWays) verdict() string {
	switch {
	case w.Err != "":
		return "in-process error: " + w.Err
	case w.NodecastRun > 0 && w.ControllerRun > 0 && w.RandomUIDs:
		return fmt.Sprintf("pod order (Karpenter gives both: nodecast's answer on in-process run %d; the controller's once pending pods have random UIDs, as an API server's are, on run %d)", w.NodecastRun, w.ControllerRun)
	case w.NodecastRun > 0 && w.ControllerRun > 0:
		return fmt.Sprintf("tie (Karpenter gives both: nodecast's answer on in-process run %d, the controller's on run %d)", w.NodecastRun, w.ControllerRun)
	case w.NodecastRun > 0:
		return fmt.Sprintf("batching or timing (controller only: nodecast = in-process Karpenter on run %d; the controller's answer on none of %d runs)", w.NodecastRun, w.Runs)
	case w.ControllerRun > 0:
		return fmt.Sprintf("nodecast differs (the in-process Karpenter gives the controller's answer on run %d, nodecast's on none of %d)", w.ControllerRun, w.Runs)
	default:
		return fmt.Sprintf("mixed (the in-process Karpenter gives neither answer in %d runs)", w.Runs)
	}
}

// cmdControllerCheck re-classifies the disagreements of finished controller runs offline:
// `oracle controller-check [-runs 24] [-max-runs 300] DIR...`, each DIR an `oracle controller`
// output directory (results.jsonl and the scenario files it names). nodecast answers the files
// again (NODECAST_CONFORMANCE), so a fixed nodecast can be measured on the recorded inputs.
func cmdControllerCheck(args []string) error {
	fs := flag.NewFlagSet("controller-check", flag.ExitOnError)
	runs := fs.Int("runs", 24, "in-process Karpenter runs")
	maxRuns := fs.Int("max-runs", defaultMaxRuns, "in-process runs once its answers are seen to vary")
	bin := fs.String("nodecast", defaultConformance(), "the nodecast-conformance binary")
	_ = fs.Parse(args)
	type row struct {
		dir string
		res ctlResult
	}
	var rows []row
	var files []string
	for _, dir := range fs.Args() {
		results, err := readResults(dir)
		if err != nil {
			return err
		}
		for _, res := range results {
			if res.controller() == nil {
				continue // a harness failure: nothing the controller did to compare
			}
			rows = append(rows, row{dir, res})
			files = append(files, filepath.Join(dir, res.Name+".yaml"))
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("no compared waves or phases under %s", strings.Join(fs.Args(), " "))
	}
	cats, recs, err := nodecastSide(*bin, files)
	if err != nil {
		return err
	}
	byFile := map[string]NodecastRecord{}
	for _, r := range recs {
		byFile[r.File] = r
	}
	counts := map[string]int{}
	agree := 0
	for _, x := range rows {
		r, ok := byFile[filepath.Join(x.dir, x.res.Name+".yaml")]
		if !ok || r.Error != "" {
			counts["nodecast error"]++
			fmt.Printf("%s\tnodecast error\t%s\n", x.res.Name, r.Error)
			continue
		}
		ctl := x.res.controller()
		c, d, _ := compare(r, ctl)
		if c == "" {
			agree++
			continue
		}
		v := inProcessTwoWays(r, cats, ctl, *runs, *maxRuns).verdict()
		kind, _, _ := strings.Cut(v, " (")
		counts[kind]++
		fmt.Printf("%s\t%s\t%s: %s\n", x.res.Name, v, c, d)
	}
	fmt.Printf("compared %d, agree %d\n", len(rows), agree)
	printCounts(counts)
	return nil
}

// controller: what the controller did in this wave or phase (a *ProvisionAnswer or a
// *DisruptAnswer), nil when the harness failed before it could say.
func (r ctlResult) controller() any {
	switch {
	case r.Disrupt != nil:
		return r.Disrupt
	case r.Karpenter != nil:
		return r.Karpenter
	}
	return nil
}

// readResults: the results.jsonl of an `oracle controller` output directory, in order. On a bad
// line it returns the results before it with the error.
func readResults(dir string) ([]ctlResult, error) {
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ctlResult
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var res ctlResult
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			return out, fmt.Errorf("%s: %w", f.Name(), err)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// printCounts prints each class with its count, by class name.
func printCounts(counts map[string]int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %4d  %s\n", counts[k], k)
	}
}

package main

// `oracle controller-sim DIR...`: nodecast's simulator against the running controller, offline,
// from a controller run's output directories (sim_timeline.go writes the timelines). For each
// ctl-<seed>-timeline.json it writes the simulate request (ctl-<seed>-sim/), runs `nodecast
// simulate`, and compares, with the oracle's own rules:
//   - per wave, the NodeClaims the simulation launched in the wave's window (from its first pod's
//     creation to the next wave or the freeze) with the controller's: the pods first nominated
//     to each, NodePool, and the simulated launch one the AWS provider may make for the
//     controller's NodeClaim (CompareProvision with the instance-type options left out: the
//     simulation does not report them); the pods put on earlier nodes and those left pending;
//   - the NodeClaims disrupted during the waves (consolidation before the freeze), by count;
//   - the first disruption decision after the budgets open (CompareDisrupt: decision, reason,
//     the Nodes, the number of replacements and the replacement's launch).
// Simulated NodeClaims are named after the real ones they stand for: those holding the same pods
// at their launch. A difference is classified against nodecast's one-shot answers on the
// run's files (ctl-<seed>.yaml, -w2, -d, answered again here): simulate = one-shot → the same
// difference the run already classes (results.jsonl's verdict); simulate ≠ one-shot → the
// simulator's clock, batching or state differs from the instant the run read.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// simAnswer: the parts of a `nodecast simulate -o json` answer compared.
type simAnswer struct {
	Status   string            `json:"status"`
	Errors   []json.RawMessage `json:"errors"`
	Nodes    []simNode         `json:"nodes"`
	Timeline []simEvent        `json:"timeline"`
}

type simNode struct {
	Name              string `json:"name"`
	NodePool          string `json:"nodePool"`
	InstanceType      string `json:"instanceType"`
	CapacityType      string `json:"capacityType"`
	Zone              string `json:"zone"`
	LaunchedSeconds   int    `json:"launchedSeconds"`
	TerminationReason string `json:"terminationReason"`
}

type simEvent struct {
	TimeSeconds int    `json:"timeSeconds"`
	Event       string `json:"event"`
	Object      string `json:"object"`
	Node        string `json:"node"`
	Reason      string `json:"reason"`
}

// simResult: one compared item (a wave, the waves' consolidation, the first decision).
type simResult struct {
	Name    string `json:"name"`
	Item    string `json:"item"` // wave1, wave2, consolidation, disruption
	Agree   bool   `json:"agree"`
	Class   string `json:"class,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// The simulation's and the controller's answers.
	Sim        any `json:"sim,omitempty"`
	Controller any `json:"controller,omitempty"`
}

func nodecastBin() string {
	if v := os.Getenv("NODECAST"); v != "" {
		return v
	}
	return "../target/debug/nodecast"
}

func cmdControllerSim(args []string) error {
	fs := flag.NewFlagSet("controller-sim", flag.ExitOnError)
	verbose := fs.Bool("v", false, "print every difference")
	_ = fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("usage: oracle controller-sim [-v] DIR... (output directories of oracle controller)")
	}
	counts := map[string][2]int{}
	classes := map[string]int{}
	for _, dir := range fs.Args() {
		res, err := simCompareDir(dir)
		if err != nil {
			return err
		}
		out, err := os.Create(filepath.Join(dir, "sim-results.jsonl"))
		if err != nil {
			return err
		}
		for _, r := range res {
			c := counts[r.Item]
			c[1]++
			if r.Agree {
				c[0]++
			} else {
				classes[r.Item+": "+r.Class+" => "+r.Verdict]++
				if *verbose {
					fmt.Printf("%s %s: %s: %s => %s\n", r.Name, r.Item, r.Class, r.Detail, r.Verdict)
				}
			}
			counts[r.Item] = c
			b, _ := json.Marshal(r)
			fmt.Fprintln(out, string(b))
		}
		out.Close()
	}
	items := make([]string, 0, len(counts))
	for k := range counts {
		items = append(items, k)
	}
	sort.Strings(items)
	for _, k := range items {
		fmt.Printf("simulate vs controller, %s: %d of %d agree\n", k, counts[k][0], counts[k][1])
	}
	printCounts(classes)
	return nil
}

// runSimulate writes the request's files under dir and runs nodecast simulate on them.
func runSimulate(f *simFiles, dir string) (*simAnswer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	write := func(name, text string) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, []byte(text), 0o644)
	}
	cluster, err := write("cluster.yaml", f.Cluster)
	if err != nil {
		return nil, err
	}
	trace, _ := write("trace.json", f.Trace)
	settings, _ := write("settings.json", f.Settings)
	catalog := f.Catalog
	if f.CatalogFile {
		if catalog, err = write("catalog.json", f.Catalog); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(nodecastBin(), "simulate", cluster, "--trace", trace, "--settings", settings, "--catalog", catalog, "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	_ = os.WriteFile(filepath.Join(dir, "answer.json"), stdout.Bytes(), 0o644)
	a := &simAnswer{}
	if err := json.Unmarshal(stdout.Bytes(), a); err != nil {
		return nil, fmt.Errorf("nodecast simulate in %s: %v: %s", dir, runErr, strings.TrimSpace(stderr.String()))
	}
	if a.Status != "success" {
		return nil, fmt.Errorf("nodecast simulate in %s: %s", dir, strings.TrimSpace(stderr.String()))
	}
	return a, nil
}

// oneShot: nodecast's one-shot answers on the run's files and the run's verdicts, by name.
type oneShot struct {
	dir      string
	plan     map[string]*ProvisionAnswer
	disrupt  map[string]*DisruptAnswer
	verdicts map[string]ctlResult
}

func readOneShot(dir string, names []string) (*oneShot, error) {
	o := &oneShot{dir: dir, plan: map[string]*ProvisionAnswer{}, disrupt: map[string]*DisruptAnswer{}, verdicts: map[string]ctlResult{}}
	// A run without results (or cut short mid-line) leaves verdicts for what was read.
	results, _ := readResults(dir)
	for _, r := range results {
		if r.Name != "" {
			o.verdicts[r.Name] = r
		}
	}
	var files []string
	for _, n := range names {
		for _, suffix := range []string{"", "-w2", "-d"} {
			if f := filepath.Join(dir, n+suffix+".yaml"); fileExists(f) {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return o, nil
	}
	_, recs, err := nodecastSide(defaultConformance(), files)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Error != "" {
			continue
		}
		if strings.HasSuffix(r.Name, "-d") {
			a := &DisruptAnswer{}
			if json.Unmarshal(r.Nodecast, a) == nil {
				o.disrupt[r.Name] = a
			}
		} else {
			a := &ProvisionAnswer{}
			if json.Unmarshal(r.Nodecast, a) == nil {
				o.plan[r.Name] = a
			}
		}
	}
	return o, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func simCompareDir(dir string) ([]simResult, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "ctl-*-timeline.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var tls []*simTimeline
	var names []string
	for _, p := range paths {
		t, err := readTimeline(p)
		if err != nil {
			return nil, err
		}
		tls = append(tls, t)
		names = append(names, t.Name)
	}
	one, err := readOneShot(dir, names)
	if err != nil {
		return nil, err
	}
	var out []simResult
	for _, t := range tls {
		f, err := simRequest(t)
		if err != nil {
			out = append(out, simResult{Name: t.Name, Item: "request", Class: "harness error", Detail: err.Error()})
			continue
		}
		a, err := runSimulate(f, filepath.Join(dir, t.Name+"-sim"))
		if err == nil {
			// Replicas are interchangeable: delete the replicas the simulation holds where the
			// controller's deleted pods ran (deletionRemap), in a second run from the start.
			if remap := newSimView(t, a).deletionRemap(); len(remap) > 0 {
				t = t.withDeletions(remap)
				if f, err = simRequest(t); err == nil {
					a, err = runSimulate(f, filepath.Join(dir, t.Name+"-sim"))
				}
			}
		}
		if err != nil {
			out = append(out, simResult{Name: t.Name, Item: "simulate", Class: "nodecast error", Detail: err.Error()})
			continue
		}
		out = append(out, compareSim(t, a, one)...)
	}
	return out, nil
}

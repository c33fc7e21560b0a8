package main

// `oracle suite`: the passes Karpenter's own suites dumped (oracle/suite/run.sh), converted,
// answered by nodecast and compared; a report per suite and, on request, a sample of agreeing
// passes as conformance files (tests/suite-sample, run by `make conformance`).

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// suiteSpecs counts a ginkgo JSON report's specs (It nodes) and how many passed.
func suiteSpecs(path string) (specs, passed int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var reports []struct {
		SpecReports []struct {
			LeafNodeType string `json:"LeafNodeType"`
			State        string `json:"State"`
		} `json:"SpecReports"`
	}
	if err := json.Unmarshal(b, &reports); err != nil {
		return 0, 0, err
	}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != "It" {
				continue
			}
			specs++
			if s.State == "passed" {
				passed++
			}
		}
	}
	return specs, passed, nil
}

// readLines reads one dump (JSON lines; a line can be large: whole clusters).
func readLines[T any](path string) ([]*T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*T
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var p T
			if jerr := json.Unmarshal(line, &p); jerr != nil {
				return nil, fmt.Errorf("%s: line %d: %w", path, len(out)+1, jerr)
			}
			out = append(out, &p)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

type suiteTally struct {
	Suite, Kind          string
	Specs, SpecsPassed   int
	Passes, Comparable   int
	Agree                int
	Excluded, Differ     map[string]int
	ExcludedEx, DifferEx map[string]string
}

func (t *suiteTally) print(w io.Writer) {
	fmt.Fprintf(w, "== %s: %d specs (%d passed on envtest), %d %s\n", t.Suite, t.Specs, t.SpecsPassed, t.Passes, t.Kind)
	excluded := 0
	for _, n := range t.Excluded {
		excluded += n
	}
	fmt.Fprintf(w, "   comparable %d, agreeing %d, differing %d, excluded %d\n", t.Comparable, t.Agree, t.Comparable-t.Agree, excluded)
	for _, m := range []struct {
		title string
		n     map[string]int
		ex    map[string]string
	}{{"excluded", t.Excluded, t.ExcludedEx}, {"differ", t.Differ, t.DifferEx}} {
		keys := make([]string, 0, len(m.n))
		for k := range m.n {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return m.n[keys[i]] > m.n[keys[j]] || m.n[keys[i]] == m.n[keys[j]] && keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(w, "   %-8s %4d  %s   (e.g. %s)\n", m.title, m.n[k], k, m.ex[k])
		}
	}
}

func cmdSuite(args []string) error {
	fs := flag.NewFlagSet("suite", flag.ExitOnError)
	dumps := fs.String("dumps", "out/suite-dumps", "where oracle/suite/run.sh wrote <suite>.jsonl and <suite>.report.json")
	dir := fs.String("dir", "out/suite", "where converted scenarios are written")
	bin := fs.String("nodecast", defaultConformance(), "the nodecast-conformance binary")
	sample := fs.Int("sample", 0, "write this many agreeing passes (one per spec first) to -sample-dir")
	sampleDir := fs.String("sample-dir", "../tests/suite-sample", "where the sample goes (its *.yaml are replaced)")
	verbose := fs.Bool("v", false, "print every difference")
	proveTies := fs.Int("prove-ties", 0, "re-run each zone/capacity-type domain choice, each pass with hostname topology over hostnameless Nodes and each disruption difference through the in-process Karpenter up to this many times, looking for both Karpenter's envtest answer and nodecast's")
	_ = fs.Parse(args)
	jsonls, err := filepath.Glob(filepath.Join(*dumps, "*.jsonl"))
	if err != nil || len(jsonls) == 0 {
		return fmt.Errorf("no dumps (*.jsonl) in %s: run `make oracle-suite` (oracle/suite/run.sh) first", *dumps)
	}
	sort.Strings(jsonls)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	var tallies []*suiteTally
	cases := map[string]*SuiteCase{}
	caseSuite := map[string]*suiteTally{}
	var files []string
	for _, path := range jsonls {
		base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		suite, decisions := strings.CutSuffix(base, ".disrupt")
		short := suite[strings.LastIndex(suite, "-")+1:]
		t := &suiteTally{Suite: "pkg/" + strings.ReplaceAll(suite, "-", "/"), Kind: "provisioning passes", Excluded: map[string]int{}, Differ: map[string]int{}, ExcludedEx: map[string]string{}, DifferEx: map[string]string{}}
		tallies = append(tallies, t)
		if s, p, err := suiteSpecs(filepath.Join(*dumps, suite+".report.json")); err == nil {
			t.Specs, t.SpecsPassed = s, p
		}
		var converts []func(string) (*SuiteCase, error)
		var specs []string
		if decisions {
			// Disruption decisions (dump_disruption.go.in): a tally of their own per suite; their
			// scenario names carry "-d" (the same suite's provisioning passes have none).
			t.Kind, short = "disruption decisions", short+"-d"
			ds, err := readLines[SuiteDecision](path)
			if err != nil {
				return err
			}
			for _, d := range ds {
				converts, specs = append(converts, d.Convert), append(specs, d.Spec)
			}
		} else {
			passes, err := readLines[SuitePass](path)
			if err != nil {
				return err
			}
			for _, p := range passes {
				converts, specs = append(converts, p.Convert), append(specs, p.Spec)
			}
		}
		t.Passes = len(converts)
		perSpec := map[string]int{}
		for i, convert := range converts {
			perSpec[specs[i]]++
			name := suiteName(short, specs[i], perSpec[specs[i]])
			c, err := convert(name)
			if err != nil {
				cat := "harness: " + err.Error()
				if ex, ok := err.(*Excluded); ok {
					cat = ex.Category
				}
				if t.Excluded[cat]++; t.ExcludedEx[cat] == "" {
					t.ExcludedEx[cat] = fmt.Sprintf("%q", specs[i])
				}
				if *verbose {
					fmt.Printf("EXCLUDED %s [%s] %v\n   %q\n", name, cat, err, specs[i])
				}
				continue
			}
			b, err := yaml.Marshal(c.Scenario)
			if err != nil {
				return err
			}
			file := filepath.Join(*dir, name+".yaml")
			if err := os.WriteFile(file, b, 0o644); err != nil {
				return err
			}
			cases[name], caseSuite[name] = c, t
			files = append(files, file)
		}
	}
	var agreeing []*SuiteCase
	if len(files) > 0 {
		cats, recs, err := nodecastSide(*bin, files)
		if err != nil {
			return err
		}
		for _, r := range recs {
			c, t := cases[r.Name], caseSuite[r.Name]
			if c == nil {
				continue
			}
			t.Comparable++
			var class, detail string
			if r.Error != "" {
				class, detail = "nodecast refuses the input", r.Error
			} else {
				var n any
				var k any = c.Karpenter
				if c.Disrupt != nil {
					k = c.Disrupt
				}
				class, detail, n = compare(r, k)
				if na, ok := n.(*ProvisionAnswer); ok && class == "instance-type options differ" && c.TruncationTie(na) {
					class = "options differ only among equal-price types at the MaxInstanceTypes cut (Karpenter's unstable sort.Slice)"
				}
				_, provision := n.(*ProvisionAnswer)
				switch {
				case provision && class != "" && *proveTies > 0 && (c.hostnameless || c.DomainChoice(class)):
					// The in-process harness applies --scheduler-config too (karpenter.go), and
					// keeps the suite's hostnameless Nodes so (Scenario.hostnameless).
					class = proveTie(r, cats, c, *proveTies)
				case provision && c.HostnamelessNodes(class):
					class = "hostname topology over Nodes without kubernetes.io/hostname (the suite's fake Nodes; a kubelet always sets it)"
				case provision && c.DomainChoice(class):
					class = "zone/capacity-type domain choice of a spread or pod affinity (Karpenter: Go map order among equal counts; not verified per pass)"
				}
				if na, ok := n.(*DisruptAnswer); ok && class != "" {
					class = c.explainDisrupt(class, na)
					if *proveTies > 0 {
						class += "; " + proveDecision(r, cats, c.Disrupt, *proveTies)
					}
				}
			}
			if class == "" {
				t.Agree++
				agreeing = append(agreeing, c)
				continue
			}
			if t.Differ[class]++; t.DifferEx[class] == "" {
				t.DifferEx[class] = r.Name
			}
			if *verbose {
				fmt.Printf("DIFFER %s [%s] %s\n   %s\n", r.Name, class, detail, c.Reference)
			}
		}
	}
	for _, t := range tallies {
		t.print(os.Stdout)
	}
	if *sample > 0 {
		return writeSample(agreeing, *sample, *sampleDir)
	}
	return nil
}

// proveTie re-runs a pass the suite's Karpenter answered one way and nodecast another through
// the in-process Karpenter (the harness of `oracle run`, same scenario) up to n times. Seeing
// both answers among Karpenter's own runs proves the difference is Karpenter's map-order choice
// among equal domains: the same code, the same input, either answer. The class says what was seen.
//
// A pass whose hostname topology meets the suite's Nodes without kubernetes.io/hostname
// (SuiteCase.hostnameless) is re-run in the suite's state, those Nodes left without the label.
// When that gives the suite's answer and never nodecast's, it is re-run as nodecast reads the
// scenario, each Node labelled with its name (as a kubelet does): nodecast's answer there shows
// the difference comes from the missing label alone (topology.go takes a Node's hostname domain
// from the label; nodecast's input defaults it to the name), not from a decision.
func proveTie(r NodecastRecord, cats map[int]*Catalog, c *SuiteCase, n int) string {
	id := catalogID(r)
	what := "zone/capacity-type domain"
	if c.hostnameless {
		what = "hostname topology over the suite's Nodes without kubernetes.io/hostname"
	}
	sawNodecast, sawEnvtest := false, false
	runs := 0
	for runs < n && !(sawNodecast && sawEnvtest) {
		runs++
		k, err := karpenterSideIn(r, cats[id], id, c.hostnameless)
		if err != nil {
			return what + ": the in-process Karpenter failed: " + err.Error()
		}
		if cl, _, _ := compare(r, k); cl == "" {
			sawNodecast = true
		}
		if kp, ok := k.(*ProvisionAnswer); ok && sameKarpenter(kp, c.Karpenter) {
			sawEnvtest = true
		}
	}
	switch {
	case sawNodecast && sawEnvtest:
		return what + ": tie, proven: Karpenter run in-process gave both the suite's answer and nodecast's"
	case sawNodecast:
		return fmt.Sprintf("%s: Karpenter in-process gave nodecast's answer, never the suite's (%d runs)", what, runs)
	case !sawEnvtest:
		return fmt.Sprintf("%s: Karpenter in-process gave neither answer (%d runs)", what, runs)
	case !c.hostnameless:
		return fmt.Sprintf("%s: Karpenter in-process gave the suite's answer, never nodecast's (%d runs)", what, runs)
	}
	for labelled := 1; labelled <= n; labelled++ {
		k, err := karpenterSideIn(r, cats[id], id, false)
		if err != nil {
			return what + ": the in-process Karpenter (Nodes labelled) failed: " + err.Error()
		}
		if cl, _, _ := compare(r, k); cl == "" {
			return what + ", shown: Karpenter in-process gives the suite's answer on the hostnameless Nodes and nodecast's once each Node has its hostname label"
		}
	}
	return fmt.Sprintf("%s: Karpenter in-process gave the suite's answer on the hostnameless Nodes (%d runs), never nodecast's, with or without the label (%d runs more)", what, runs, n)
}

// proveDecision re-runs a disruption decision the suite's Karpenter and nodecast answered
// differently through the in-process Karpenter (its disruption methods on the same scenario, the
// clock at the dumped time) up to n times, and says which answers Karpenter's own runs gave: both
// proves a tie among Karpenter's arbitrary orders (sort.Slice, Go map order); nodecast's alone
// says that on the dumped cluster Karpenter decides as nodecast, so the suite's answer came from
// something the dump does not hold (its own method order, a cluster changed meanwhile).
func proveDecision(r NodecastRecord, cats map[int]*Catalog, suite *DisruptAnswer, n int) string {
	id := catalogID(r)
	sawNodecast, sawSuite := false, false
	runs := 0
	for runs < n && !(sawNodecast && sawSuite) {
		runs++
		k, err := karpenterSide(r, cats[id], id)
		if err != nil {
			return "the in-process Karpenter failed: " + err.Error()
		}
		if cl, _, _ := compare(r, k); cl == "" {
			sawNodecast = true
		}
		if kd, ok := k.(*DisruptAnswer); ok && sameDecision(kd, suite) {
			sawSuite = true
		}
	}
	switch {
	case sawNodecast && sawSuite:
		return "in-process Karpenter gave both answers (tie proven)"
	case sawNodecast:
		return fmt.Sprintf("in-process Karpenter gave nodecast's answer, never the suite's (%d runs)", runs)
	case sawSuite:
		return fmt.Sprintf("in-process Karpenter gave the suite's answer, never nodecast's (%d runs)", runs)
	}
	return fmt.Sprintf("in-process Karpenter gave neither answer (%d runs)", runs)
}

// sameDecision: two Karpenter disruption answers agree (decision, reason, nodes, the
// replacements, the first replacement's pool and options; its launch set follows from those).
func sameDecision(a, b *DisruptAnswer) bool {
	norm := func(d *DisruptAnswer) string {
		x := DisruptAnswer{Decision: strings.ToLower(d.Decision), Reason: d.Reason, Nodes: slices.Sorted(slices.Values(d.Nodes)), Replacements: d.Replacements}
		if d.Replacement != nil {
			x.Replacement = &Claim{NodePool: d.Replacement.NodePool, Options: d.Replacement.Options}
		}
		if len(x.Nodes) == 0 {
			x.Nodes = nil
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	return norm(a) == norm(b)
}

// sameKarpenter: two Karpenter answers to one pass agree (claims with their pods, pool, options
// and launch set; existing-node placements; unschedulable pods).
func sameKarpenter(a, b *ProvisionAnswer) bool {
	norm := func(p *ProvisionAnswer) string {
		x := ProvisionAnswer{Existing: p.Existing, Unschedulable: p.Unschedulable}
		for _, c := range p.Claims {
			x.Claims = append(x.Claims, Claim{Pods: c.Pods, NodePool: c.NodePool, Options: c.Options, Launch: c.Launch})
		}
		sortClaims(x.Claims)
		if len(x.Existing) == 0 {
			x.Existing = nil
		}
		if len(x.Unschedulable) == 0 {
			x.Unschedulable = nil
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	return norm(a) == norm(b)
}

const maxSampleBytes = 64 << 10

// writeSample: up to n agreeing passes, one per spec first (by name, so the choice is stable).
func writeSample(agreeing []*SuiteCase, n int, dir string) error {
	sort.Slice(agreeing, func(i, j int) bool { return agreeing[i].Name < agreeing[j].Name })
	var chosen []*SuiteCase
	seen := map[string]bool{}
	for round := 0; round < 2 && len(chosen) < n; round++ {
		for _, c := range agreeing {
			if len(chosen) == n {
				break
			}
			if (round == 0) == seen[c.Reference] || (round == 1 && slicesContains(chosen, c)) {
				continue
			}
			// Bounded: the passes over the suite's 600-type catalog are 600 KB each.
			if b, err := yaml.Marshal(c.Scenario); err != nil || len(b) > maxSampleBytes {
				continue
			}
			seen[c.Reference] = true
			chosen = append(chosen, c)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, c := range chosen {
		b, err := yaml.Marshal(c.Scenario)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name+".yaml"), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("== sample: %d agreeing passes written to %s\n", len(chosen), dir)
	return nil
}

func slicesContains(cs []*SuiteCase, c *SuiteCase) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// Command oracle is nodecast's differential harness against the real Karpenter (issue 15): it
// runs conformance-format scenarios through nodecast (`nodecast-conformance --oracle`) and through
// Karpenter's own provisioning and disruption code in-process, and compares the answers.
//
//	oracle run [-provision N] [-disrupt N] [-gates N] [-reserved N] [-rdisrupt N] [-drift N] [-prices N] [-pdisrupt N] [-sample KIND=SEEDS]... [-seed S] [-runs R] [-max-runs M] [-v] [PATH...]
//	oracle gen -kind provision|disrupt|gates|reserved|rdisrupt|drift -seed N [-o FILE]
//	oracle show (-kind K -seed N | FILE)      side-by-side answers of one scenario
//	oracle suite [-dumps DIR] [-sample N] [-v]  Karpenter's own suites' passes (oracle/suite/run.sh) compared
//	oracle controller [-n N] [-seed S] -assets DIR -crds DIRS [-v]  Karpenter running as a controller (controller_cmd.go)
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: oracle run [-provision N] [-disrupt N] [-gates N] [-reserved N] [-rdisrupt N] [-drift N] [-dra N] [-dradisrupt N] [-repair N] [-static N] [-buffer N] [-seed S] [-runs R] [-max-runs M] [-v] [PATH...] | oracle gen -kind K -seed N [-o FILE] | oracle show (-kind K -seed N | FILE) | oracle suite [-dumps DIR] [-sample N] [-v] | oracle controller -n N -seed S ... | oracle controller-sim DIR... | oracle controller-check [-runs R] [-max-runs M] DIR...")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(os.Args[2:])
	case "gen":
		err = cmdGen(os.Args[2:])
	case "show":
		err = cmdShow(os.Args[2:])
	case "suite":
		err = cmdSuite(os.Args[2:])
	case "controller":
		err = cmdController(os.Args[2:])
	case "controller-check":
		err = cmdControllerCheck(os.Args[2:])
	case "controller-sim":
		err = cmdControllerSim(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
}

func defaultConformance() string {
	if v := os.Getenv("NODECAST_CONFORMANCE"); v != "" {
		return v
	}
	return "../target/release/nodecast-conformance"
}

// nodecastSide runs nodecast once over all files; returns the catalogs and the scenario records.
func nodecastSide(bin string, files []string) (map[int]*Catalog, []NodecastRecord, error) {
	cmd := exec.Command(bin, append([]string{"--oracle"}, files...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	cats := map[int]*Catalog{}
	var recs []NodecastRecord
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var r NodecastRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, nil, err
		}
		if r.Record == "catalog" {
			var c Catalog
			if err := json.Unmarshal(r.Catalog, &c); err != nil {
				return nil, nil, err
			}
			cats[r.ID] = &c
		} else {
			r.Raw = append([]byte(nil), sc.Bytes()...)
			recs = append(recs, r)
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", bin, err)
	}
	return cats, recs, nil
}

// catalogID of a scenario record (the field is shared with the catalog's JSON in the line).
func catalogID(r NodecastRecord) int {
	var id int
	_ = json.Unmarshal(r.Catalog, &id)
	return id
}

// itCache: Karpenter's instance types per catalog. A NodePool whose EC2NodeClass selects
// reservations gets them with its reserved types rebuilt (WithReserved): one cached list per
// reservation set would hold a whole catalog per scenario (gigabytes over a long run).
var itCache = map[int]cloudprovider.InstanceTypes{}

// `base` is the catalog line, `cat` the scenario's (base with its priced offerings swapped in,
// `offs`; priced.go).
func cachedTypes(base, cat *Catalog, catID int, offs map[string][]CatalogOffering, scenario string, reserved map[string][]CatalogOffering) cloudprovider.InstanceTypes {
	if _, ok := itCache[catID]; !ok {
		itCache[catID] = base.InstanceTypes(nil)
	}
	types, key := itCache[catID], fmt.Sprint(catID)
	if len(offs) > 0 {
		key += "|" + scenario
		types = pricedTypes(types, cat, offs, key)
	}
	if len(reserved) == 0 {
		return types
	}
	// Re-runs of one scenario reuse its lists (Karpenter keeps state per instance type, so fresh
	// objects on every run cost memory); a bounded cache, emptied when full.
	key += "|" + extraKey(reserved)
	if its, ok := reservedCache[key]; ok {
		return its
	}
	if len(reservedCache) >= 32 {
		reservedCache = map[string]cloudprovider.InstanceTypes{}
	}
	reservedCache[key] = cat.WithReserved(types, reserved)
	return reservedCache[key]
}

var reservedCache = map[string]cloudprovider.InstanceTypes{}

// karpenterSide answers one scenario with Karpenter.
func karpenterSide(r NodecastRecord, base *Catalog, catID int) (any, error) {
	return karpenterSideIn(r, base, catID, false)
}

// karpenterSideIn: karpenterSide, with the scenario's Nodes that lack kubernetes.io/hostname left
// without it when hostnameless (the suite's state; Scenario.hostnameless).
func karpenterSideIn(r NodecastRecord, base *Catalog, catID int, hostnameless bool) (any, error) {
	cat := base.WithOfferings(r.Offerings)
	list, err := LoadScenarios(r.File)
	if err != nil {
		return nil, err
	}
	var s *Scenario
	for _, x := range list {
		if x.Name == r.Name || len(list) == 1 {
			s = x
		}
	}
	if s == nil {
		return nil, fmt.Errorf("scenario %s not in %s", r.Name, r.File)
	}
	s.dra, s.hostnameless = r.Dra, hostnameless
	env, err := newEnvWith(s, cat, func(reserved map[string][]CatalogOffering) cloudprovider.InstanceTypes {
		return cachedTypes(base, cat, catID, r.Offerings, r.File+"|"+r.Name, reserved)
	})
	if err != nil {
		return nil, err
	}
	return recoverKarpenter(func() (any, error) {
		if s.Kind == "disrupt" {
			return env.Disrupt()
		}
		return env.Provision(nodecastStatic(r.Nodecast))
	})
}

// recoverKarpenter runs f, turning a panic in Karpenter's code into a *karpenterPanic error
// (Karpenter v1.15.0's DRA allocator panics on a claim two moving pods share: dra_test.go).
func recoverKarpenter(f func() (any, error)) (ans any, err error) {
	defer func() {
		if p := recover(); p != nil {
			ans, err = nil, &karpenterPanic{msg: fmt.Sprint(p)}
		}
	}()
	return f()
}

// reservedOfferingsDiffer: nodecast's reserved offerings against the harness's own selection.
func reservedOfferingsDiffer(r NodecastRecord, cat *Catalog) string {
	list, err := LoadScenarios(r.File)
	if err != nil || cat == nil {
		return ""
	}
	for _, s := range list {
		if s.Name == r.Name || len(list) == 1 {
			return cat.CheckReservedOfferings(s, r.Reserved)
		}
	}
	return ""
}

// Result of one scenario.
type Result struct {
	Name, File, Kind string
	Class, Detail    string
	// Agreed only after re-running Karpenter (its answer varies from run to run).
	Nondeterministic bool
	// Ties nodecast disclosed; Karpenter runs made (until the first agreement).
	Ties, Runs     int
	Nodecast, Karp any
	// Excluded: Karpenter itself failed on the scenario (a panic in its own code), so there is
	// no decision to compare; counted apart from agreements and disagreements.
	Excluded bool
}

// karpenterPanic is a panic raised inside Karpenter's code while it answered a scenario. The
// operator's controller-runtime recovers such a panic and retries the reconcile, so Karpenter
// makes no decision in that state: the harness reports the scenario as excluded, with the panic.
type karpenterPanic struct{ msg string }

func (p *karpenterPanic) Error() string { return "Karpenter panicked: " + p.msg }

func compare(r NodecastRecord, k any) (string, string, any) {
	switch ka := k.(type) {
	case *ProvisionAnswer:
		var n ProvisionAnswer
		if err := json.Unmarshal(r.Nodecast, &n); err != nil {
			return "error", err.Error(), nil
		}
		c, d := CompareProvision(&n, ka)
		return c, d, &n
	case *DisruptAnswer:
		var n DisruptAnswer
		if err := json.Unmarshal(r.Nodecast, &n); err != nil {
			return "error", err.Error(), nil
		}
		if n.Nodes == nil {
			n.Nodes = []string{}
		}
		c, d := CompareDisrupt(&n, ka)
		return c, d, &n
	}
	return "error", "unknown answer", nil
}

// defaultMaxRuns: the re-run budget of a disagreement on which Karpenter is seen to be
// nondeterministic. See oracle/README.md ("Nondeterminism") for how it was measured.
const defaultMaxRuns = 300

// disclosedTies: how many of Karpenter's arbitrary picks nodecast's answer says it depends on.
func disclosedTies(r NodecastRecord) int {
	var t struct {
		Ties int `json:"ties"`
	}
	_ = json.Unmarshal(r.Nodecast, &t)
	return t.Ties
}

// check runs Karpenter on a scenario, up to `runs` times while it disagrees with nodecast. When
// those runs show that Karpenter's answer varies (two runs differed), or nodecast disclosed a tie,
// nodecast's answer may be one of Karpenter's rarer outcomes (several map-order picks must all go
// its way), so it keeps going up to `maxRuns`. A disagreement with a Karpenter that answered the
// same every time costs only `runs`.
func check(r NodecastRecord, cats map[int]*Catalog, runs, maxRuns int) Result {
	res := Result{Name: r.Name, File: r.File, Kind: r.Kind}
	if r.Error != "" {
		res.Class, res.Detail = "error", "nodecast: "+r.Error
		return res
	}
	res.Ties = disclosedTies(r)
	id := catalogID(r)
	if d := reservedOfferingsDiffer(r, cats[id].WithOfferings(r.Offerings)); d != "" {
		res.Class, res.Detail = "reserved offerings differ (reservation selection)", d
		return res
	}
	classes := map[string]bool{}
	answers := map[string]bool{}
	for i := 0; i < runs; i++ {
		k, err := karpenterSide(r, cats[id], id)
		var kp *karpenterPanic
		if errors.As(err, &kp) {
			res.Class, res.Detail, res.Excluded = "excluded: Karpenter panicked", kp.msg, true
			return res
		}
		if err != nil {
			res.Class, res.Detail = "error", "karpenter: "+err.Error()
			return res
		}
		c, d, n := compare(r, k)
		res.Nodecast, res.Karp = n, k
		res.Runs = i + 1
		if c == "" {
			res.Class, res.Detail = "", ""
			res.Nondeterministic = len(classes) > 0
			return res
		}
		classes[c] = true
		if b, err := json.Marshal(k); err == nil {
			answers[string(b)] = true
		}
		if i == 0 {
			res.Class, res.Detail = c, d
		}
		if i+1 == runs && runs < maxRuns && (len(answers) > 1 || res.Ties > 0) {
			runs = maxRuns
		}
	}
	return res
}

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	nProv := fs.Int("provision", 200, "random provisioning scenarios")
	nDis := fs.Int("disrupt", 100, "random disruption scenarios")
	nGates := fs.Int("gates", 0, "random NodeOverlay / DRA scenarios (gen_gates.go), half with NodeOverlay=true")
	nRes := fs.Int("reserved", 0, "random reserved-capacity provisioning scenarios (gen_reserved.go; make oracle-reserved)")
	nRDis := fs.Int("rdisrupt", 0, "random disruption scenarios with reserved nodes (make oracle-reserved)")
	nDrift := fs.Int("drift", 0, "random drift scenarios (gen_drift.go)")
	nSDrift := fs.Int("sdrift", 0, "random drift scenarios with static NodePools (gen_drift.go): Karpenter's StaticDrift method")
	nPrices := fs.Int("prices", 0, "random provisioning scenarios with spot price history, zone offerings and on-demand prices (gen_prices.go)")
	nPDis := fs.Int("pdisrupt", 0, "random disruption scenarios with spot price history, zone offerings and on-demand prices (gen_prices.go)")
	nRepair := fs.Int("repair", 0, "random node-repair disruption scenarios (gen_repair.go): Karpenter's Repair method, NodeRepair on for most")
	nStatic := fs.Int("static", 0, "random static-NodePool scenarios (gen_capacity.go): Karpenter's static provisioning controller, StaticCapacity on for most")
	nBuffer := fs.Int("buffer", 0, "random CapacityBuffer scenarios (gen_capacity.go): Karpenter's capacitybuffer controller and virtual pods, CapacityBuffer on for most")
	nDRA := fs.Int("dra", 0, "random DRA scenarios (gen_dra.go): Karpenter's DRA allocator, --ignore-dra-requests both ways")
	nDRADis := fs.Int("dradisrupt", 0, "random DRA disruption scenarios (gen_dradisrupt.go): consolidation of nodes whose pods hold allocated claims, --ignore-dra-requests both ways")
	var samples seedSamples
	fs.Var(&samples, "sample", "KIND=SEEDS: generated scenarios of KIND with exactly these seeds (e.g. reserved=1-20,22; repeatable)")
	seed := fs.Int64("seed", 1, "first seed")
	runs := fs.Int("runs", 24, "Karpenter runs per scenario before a disagreement counts (map-order nondeterminism)")
	maxRuns := fs.Int("max-runs", defaultMaxRuns, "Karpenter runs when the first -runs showed Karpenter's answer varying (or nodecast disclosed a tie)")
	dir := fs.String("dir", "out/scenarios", "where generated scenarios are written")
	bin := fs.String("nodecast", defaultConformance(), "the nodecast-conformance binary")
	verbose := fs.Bool("v", false, "print every disagreement")
	memProfile := fs.String("memprofile", "", "write a heap profile here after the run (go tool pprof)")
	memEvery := fs.Int("memevery", 0, "every N scenarios, print the counts so far, the heap in use and the goroutine count (stderr)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run here (go tool pprof)")
	record := fs.String("record", "", "write nodecast's record of every scenario Karpenter agreed with, and the catalogs they use, to this JSON-lines file (tools/oracle_sample.py turns it into tests/oracle-sample)")
	_ = fs.Parse(args)
	start := time.Now()
	// A run's live heap is ~100 MiB and Karpenter's scheduler allocates freely; with Go's default
	// GOGC=100 the collector took 13 % of a reservation/gates run's CPU. GOGC in the environment
	// still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	stopProfile := func() {}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		stopProfile = stop
		defer stopProfile()
	}
	files, err := expandPaths(fs.Args())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	for i := 0; i < *nProv; i++ {
		f, err := writeGenerated(*dir, "provision", *seed+int64(i))
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, k := range []struct {
		kind string
		n    int
	}{{"disrupt", *nDis}, {"reserved", *nRes}, {"rdisrupt", *nRDis}, {"prices", *nPrices}, {"pdisrupt", *nPDis}, {"dra", *nDRA}, {"dradisrupt", *nDRADis}, {"repair", *nRepair}, {"static", *nStatic}, {"buffer", *nBuffer}, {"sdrift", *nSDrift}} {
		for i := 0; i < k.n; i++ {
			f, err := writeGenerated(*dir, k.kind, *seed+int64(i))
			if err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	for i := 0; i < *nGates; i++ {
		f, err := writeGenerated(*dir, "gates", *seed+int64(i))
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for i := 0; i < *nDrift; i++ {
		f, err := writeGenerated(*dir, "drift", *seed+int64(i))
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, smp := range samples {
		for _, sd := range smp.seeds {
			f, err := writeGenerated(*dir, smp.kind, sd)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	cats, recs, err := nodecastSide(*bin, files)
	if err != nil {
		return err
	}
	type agg struct {
		n       int
		example string
	}
	classes := map[string]*agg{}
	passed, failed, nondet, excluded := 0, 0, 0, 0
	var agreed []NodecastRecord
	for i, r := range recs {
		if *memEvery > 0 && i%*memEvery == 0 {
			printMem(i, passed, failed)
		}
		res := check(r, cats, *runs, *maxRuns)
		if res.Class == "" {
			passed++
			if res.Nondeterministic {
				nondet++
			}
			agreed = append(agreed, r)
			continue
		}
		if res.Excluded {
			excluded++
			if *verbose {
				fmt.Printf("EXCLUDED %s [%s] %s\n", res.Name, res.Class, res.Detail)
			}
			continue
		}
		failed++
		key := res.Kind + ": " + res.Class
		if classes[key] == nil {
			classes[key] = &agg{example: res.Name}
		}
		classes[key].n++
		if *verbose {
			fmt.Printf("DIFF %s [%s] %s\n", res.Name, res.Class, res.Detail)
		}
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return classes[keys[i]].n > classes[keys[j]].n || (classes[keys[i]].n == classes[keys[j]].n && keys[i] < keys[j])
	})
	for _, k := range keys {
		fmt.Printf("%5d  %s  (e.g. %s)\n", classes[k].n, k, classes[k].example)
	}
	fmt.Printf("(%d scenarios in %s; %d agreed only on a Karpenter re-run: Karpenter's answer varies between runs)\n", len(recs), time.Since(start).Round(time.Second), nondet)
	if excluded > 0 {
		fmt.Printf("%d excluded: Karpenter panicked, no decision to compare (EXCLUDED lines)\n", excluded)
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if *memEvery > 0 {
		printMem(len(recs), passed, failed)
	}
	if *record != "" {
		if err := writeAgreed(*record, cats, agreed); err != nil {
			return err
		}
	}
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	if failed > 0 {
		stopProfile() // os.Exit skips deferred calls
		os.Exit(1)
	}
	return nil
}

// writeAgreed writes the records of the scenarios Karpenter agreed with, one line each as nodecast
// printed it, after a header line naming the Karpenter module and the catalogs' count. The
// catalogs are not written: tools/oracle_sample.py runs the same nodecast on these files again,
// checks every record is byte-equal to the one compared here, and digests the catalogs then.
func writeAgreed(path string, cats map[int]*Catalog, agreed []NodecastRecord) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	hdr, _ := json.Marshal(map[string]any{"record": "header", "karpenter": karpenterVersion(), "scenarios": len(agreed), "catalogs": len(cats)})
	w.Write(append(hdr, '\n'))
	for _, r := range agreed {
		w.Write(append(r.Raw, '\n'))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func expandPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			m, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			sort.Strings(m)
			out = append(out, m...)
		} else {
			out = append(out, p)
		}
	}
	return out, nil
}

func cmdShow(args []string) error {
	fs := flag.NewFlagSet("show", flag.ExitOnError)
	kind := fs.String("kind", "provision", "provision, disrupt, gates, reserved, rdisrupt, drift, prices, pdisrupt, dra, dradisrupt, repair, static or buffer")
	seed := fs.Int64("seed", -1, "generated scenario seed")
	runs := fs.Int("runs", 24, "Karpenter runs")
	maxRuns := fs.Int("max-runs", defaultMaxRuns, "Karpenter runs when its answer is seen to vary")
	dir := fs.String("dir", "out/scenarios", "where generated scenarios are written")
	bin := fs.String("nodecast", defaultConformance(), "the nodecast-conformance binary")
	_ = fs.Parse(args)
	var files []string
	if *seed >= 0 {
		_ = os.MkdirAll(*dir, 0o755)
		f, err := writeGenerated(*dir, *kind, *seed)
		if err != nil {
			return err
		}
		files = []string{f}
	} else {
		files = fs.Args()
	}
	cats, recs, err := nodecastSide(*bin, files)
	if err != nil {
		return err
	}
	for _, r := range recs {
		res := check(r, cats, *runs, *maxRuns)
		nb, _ := json.MarshalIndent(res.Nodecast, "", "  ")
		kb, _ := json.MarshalIndent(res.Karp, "", "  ")
		fmt.Printf("== %s (%s)\n", r.Name, r.File)
		side(string(nb), string(kb))
		if res.Class == "" {
			fmt.Printf("AGREE%s\n", map[bool]string{true: fmt.Sprintf(" (after re-running Karpenter: run %d)", res.Runs), false: ""}[res.Nondeterministic])
		} else {
			fmt.Printf("DIFF [%s] %s\n", res.Class, res.Detail)
		}
	}
	return nil
}

func side(a, b string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	w := 60
	fmt.Printf("%-*s | %s\n", w, "NODECAST", "KARPENTER")
	for i := 0; i < max(len(la), len(lb)); i++ {
		x, y := "", ""
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if len(x) > w {
			x = x[:w-1] + "…"
		}
		fmt.Printf("%-*s | %s\n", w, x, y)
	}
}

// generatedName: a scenario of the random generators (`<kind>-<seed>`).
func generatedName(name string) bool {
	kind, seed, ok := strings.Cut(name, "-")
	if !ok || kind == "" {
		return false
	}
	_, err := strconv.Atoi(seed)
	return err == nil
}

// karpenterVersion: the version of sigs.k8s.io/karpenter this binary was built with (go.mod).
func karpenterVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "sigs.k8s.io/karpenter" {
				return d.Version
			}
		}
	}
	return "unknown"
}

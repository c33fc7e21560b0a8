package main

// `oracle controller`: nodecast against Karpenter running as a controller (issue 36, part 3).
// The harness itself (API server, Karpenter's controllers, the kubelet/scheduler stand-in) is
// package oracle/controller; this file generates the scenarios, drives them through it and
// compares what Karpenter did with nodecast's answer and with the in-process oracle's.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodecast/nodecast/oracle/controller"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/yaml"
)

// generateController is scenario `ctl-<seed>`: the provision generator's NodePools, DaemonSets
// and workloads (GPU and not) on an empty cluster (Karpenter's controller would have to own any
// existing node; the harness starts every scenario from none), Karpenter's default settings
// (one operator serves every scenario, so its flags cannot change per scenario). Own stream.
// Half of the scenarios have a second wave: more workloads (namespace `wave2`) created `delay`
// after the first wave's pods are bound; it returns that wave's documents apart ("" for none)
// and the base documents (NodePools, DaemonSets) the second wave's nodecast input starts from.
func generateController(seed int64) (scenario, base, wave2 string, delay time.Duration, err error) {
	g := &gen{r: rand.New(rand.NewSource(seed*7919 + 36)), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	catalog := g.drawCatalog()
	nPools := 1 + g.r.Intn(3)
	for i := 0; i < nPools; i++ {
		g.nodePool(i, false)
	}
	g.daemonSets()
	nBase := len(g.docs)
	g.workloads(1+g.r.Intn(8), "default")
	if scenario, err = marshalScenario(g.scenario("ctl", seed, "provision", catalog)); err != nil {
		return
	}
	base = strings.Join(g.docs[:nBase], "---\n")
	if g.chance(0.5) {
		n := len(g.docs)
		g.workloads(1+g.r.Intn(4), "wave2")
		wave2 = strings.Join(g.docs[n:], "---\n")
		delay = time.Duration(g.r.Intn(4)) * 2 * time.Second
	}
	return
}

type ctlResult struct {
	Name       string `json:"name"`
	Agree      bool   `json:"agree"`
	Class      string `json:"class,omitempty"`
	Detail     string `json:"detail,omitempty"`
	InProcess  string `json:"inProcess"` // "agree" or the class of the in-process oracle vs the controller
	NodecastIP string `json:"nodecastVsInProcess"`
	Claims     int    `json:"claims"`
	Pods       int    `json:"pods"`
	Seconds    float64
	Karpenter  *ProvisionAnswer `json:"karpenter,omitempty"`
	// Karpenter's FailedScheduling messages for the wave's pods it never nominated.
	Failures map[string]string `json:"failures,omitempty"`
	// For a disagreement: tie, batching or timing, or nodecast differs (classify).
	Verdict string `json:"verdict,omitempty"`
	// A disruption phase (controller_disrupt.go): Karpenter's first decision, and the seconds
	// from the budgets opening to it (Karpenter's poll and validation).
	Disrupt *DisruptAnswer `json:"disrupt,omitempty"`
	Decide  float64        `json:"decideSeconds,omitempty"`
}

func cmdController(args []string) error {
	fs := flag.NewFlagSet("controller", flag.ExitOnError)
	n := fs.Int("n", 200, "scenarios")
	seed := fs.Int64("seed", 1, "first seed")
	assets := fs.String("assets", os.Getenv("KUBEBUILDER_ASSETS"), "envtest's kube-apiserver and etcd")
	crds := fs.String("crds", "", "comma-separated CRD directories (Karpenter's pkg/apis/crds and pkg/test/v1alpha1/crds)")
	idle := fs.Duration("batch-idle", time.Second, "Karpenter's --batch-idle-duration")
	max := fs.Duration("batch-max", 10*time.Second, "Karpenter's --batch-max-duration")
	quiet := fs.Duration("quiet", 2*time.Second, "a scenario is settled once Karpenter has launched or nominated nothing for this long")
	timeout := fs.Duration("timeout", 90*time.Second, "give up on a scenario after this long")
	outDir := fs.String("out", "out/controller", "scenarios, logs and results")
	verbose := fs.Bool("v", false, "print every disagreement")
	disrupt := fs.Bool("disrupt", true, "after the waves, delete a share of the pods and compare Karpenter's first disruption decision with nodecast consolidate")
	_ = fs.Parse(args)
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	var files []string
	waves := map[string]*secondWave{}
	plans := map[string]*disruptPlan{}
	for s := *seed; s < *seed+int64(*n); s++ {
		text, base, w2, delay, err := generateController(s)
		if err != nil {
			return err
		}
		if w2 != "" {
			waves[fmt.Sprintf("ctl-%d", s)] = &secondWave{base: base, docs: w2, delay: delay}
		}
		if *disrupt {
			plans[fmt.Sprintf("ctl-%d", s)] = generateDisruptPlan(s, base)
		}
		f := filepath.Join(*outDir, fmt.Sprintf("ctl-%d.yaml", s))
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			return err
		}
		files = append(files, f)
	}
	cats, recs, err := nodecastSide(defaultConformance(), files)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("nodecast answered no scenario")
	}
	for _, c := range cats {
		c.Register()
	}
	first := recs[0]
	h, err := controller.Start(controller.Options{Assets: *assets, CRDDirs: strings.Split(*crds, ","), BatchIdle: *idle, BatchMax: *max,
		LogDir: *outDir, InstanceTypes: cats[catalogID(first)].InstanceTypes(nil)})
	if err != nil {
		return err
	}
	defer h.Stop()
	ctx := context.Background()
	results, err := os.Create(filepath.Join(*outDir, "results.jsonl"))
	if err != nil {
		return err
	}
	defer results.Close()
	agree, total, classes, verdicts := 0, 0, map[string]int{}, map[string]int{}
	start := time.Now()
	count := func(res ctlResult) {
		if res.Agree {
			agree++
		} else {
			classes[res.Class]++
			v := res.Verdict
			if i := strings.Index(v, " ("); i > 0 {
				v = v[:i]
			}
			verdicts[v]++
			if *verbose {
				fmt.Printf("%s: %s: %s (in-process oracle vs controller: %s; nodecast vs in-process: %s) => %s\n", res.Name, res.Class, res.Detail, res.InProcess, res.NodecastIP, res.Verdict)
			}
		}
		b, _ := json.Marshal(res)
		fmt.Fprintln(results, string(b))
	}
	for i, r := range recs {
		res := runControllerScenario(ctx, h, r, cats, waves[r.Name], plans[r.Name], *outDir, *quiet, *timeout)
		total++
		count(res)
		if (i+1)%10 == 0 {
			fmt.Printf("%d scenarios, %d of %d waves agree (%s)\n", i+1, agree, total, time.Since(start).Round(time.Second))
		}
	}
	// The second waves: nodecast on the cluster as it was when each began (Karpenter's Nodes
	// and the bound pods as existing capacity, the wave's pods pending).
	var w2files []string
	byName := map[string]*secondWave{}
	for _, w := range waves {
		if w.file != "" {
			w2files = append(w2files, w.file)
			byName[w.name] = w
		}
	}
	sort.Strings(w2files)
	if len(w2files) > 0 {
		cats2, recs2, err := nodecastSide(defaultConformance(), w2files)
		if err != nil {
			return err
		}
		for _, r := range recs2 {
			w := byName[r.Name]
			if w == nil {
				continue
			}
			total++
			count(compareWave(r, cats2, w))
		}
	}
	fmt.Printf("controller: %d of %d waves agree (%d scenarios; %d second waves) (%s)\n", agree, total, len(recs), len(w2files), time.Since(start).Round(time.Second))
	if *disrupt {
		dAgree, dTotal, err := compareDisruptions(plans, count, &agree, &total)
		if err != nil {
			return err
		}
		fmt.Printf("disruption: %d of %d first decisions agree\n", dAgree, dTotal)
	}
	printCounts(classes)
	fmt.Println("disagreements by verdict:")
	printCounts(verdicts)
	if agree != total {
		return fmt.Errorf("%d disagreements", total-agree)
	}
	return nil
}

// secondWave: a scenario's second wave, its nodecast input (file, scenario name) and what the
// controller did (karpenter).
type secondWave struct {
	base, docs string
	delay      time.Duration
	file, name string
	karpenter  *ProvisionAnswer
	err        string
	seconds    float64
}

func runControllerScenario(ctx context.Context, h *controller.Harness, r NodecastRecord, cats map[int]*Catalog, w2 *secondWave, plan *disruptPlan, outDir string, quiet, timeout time.Duration) ctlResult {
	t0 := time.Now()
	res := ctlResult{Name: r.Name}
	fail := func(class string, err error) ctlResult {
		res.Class, res.Detail, res.Seconds = class, err.Error(), time.Since(t0).Seconds()
		return res
	}
	if r.Error != "" {
		return fail("nodecast error", fmt.Errorf("%s", r.Error))
	}
	base := cats[catalogID(r)]
	cat := base.WithOfferings(r.Offerings)
	its := cachedTypes(base, cat, catalogID(r), r.Offerings, r.File+"|"+r.Name, nil)
	h.SetInstanceTypes(its, awsLaunchPick(cat.aws()))
	list, err := LoadScenarios(r.File)
	if err != nil || len(list) != 1 {
		return fail("harness error", fmt.Errorf("loading %s: %v", r.File, err))
	}
	objs, err := list[0].ParseObjects()
	if err != nil {
		return fail("harness error", err)
	}
	created, err := applyScenario(ctx, h, objs)
	defer func() {
		if err := h.Reset(ctx, created, 30*time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "%s: reset: %v\n", r.Name, err)
		}
	}()
	if err != nil {
		return fail("harness error", err)
	}
	pending := map[string]bool{}
	for _, p := range objs.Pods {
		if p.Spec.NodeName == "" {
			pending[p.Namespace+"/"+p.Name] = true
		}
	}
	res.Pods = len(pending)
	// nodecast's input for the wave: the scenario with its pods as the API server now holds them.
	rewritten, err := firstWaveScenario(ctx, h, list[0])
	if err == nil {
		err = os.WriteFile(r.File, []byte(rewritten), 0o644)
	}
	if err != nil {
		return fail("harness error", fmt.Errorf("rewriting %s with the API server's pods: %w", r.File, err))
	}
	if err := settle(h, pending, quiet, timeout); err != nil {
		return fail("timing (not settled)", err)
	}
	k := controllerAnswer(h, its, cat.aws(), pending, 0)
	if w2 != nil {
		t1 := time.Now()
		w2.name = r.Name + "-w2"
		w2.karpenter, w2.err = runSecondWave(ctx, h, list[0], w2, its, cat.aws(), outDir, quiet, timeout)
		w2.seconds = time.Since(t1).Seconds()
	}
	if plan != nil {
		plan.name = r.Name + "-d"
		runDisruption(ctx, h, list[0], plan, its, cat.aws(), outDir, timeout)
		plan.record(outDir)
	}
	writeTimeline(h, r.Name, list[0], plan, its, cat.aws(), outDir)
	res.Karpenter, res.Claims, res.Failures = k, len(k.Claims), k.failures
	// nodecast answers the rewritten first wave now, the scenario's timing-sensitive part done
	// (the answer made at the start, on the generated file, gave the harness its catalog).
	cats1, recs1, err := nodecastSide(defaultConformance(), []string{r.File})
	if err != nil || len(recs1) != 1 {
		return fail("harness error", fmt.Errorf("nodecast on the rewritten %s: %v (%d answers)", r.File, err, len(recs1)))
	}
	r = recs1[0]
	if r.Error != "" {
		return fail("nodecast error", fmt.Errorf("%s", r.Error))
	}
	var nc ProvisionAnswer
	if err := json.Unmarshal(r.Nodecast, &nc); err != nil {
		return fail("harness error", err)
	}
	compareAll(&res, r, cats1[catalogID(r)], &nc, k)
	classify(&res, r, cats1)
	res.Seconds = time.Since(t0).Seconds()
	return res
}

// settle waits until every pod of `pending` is nominated or failed and Karpenter has been quiet
// for `quiet`.
func settle(h *controller.Harness, pending map[string]bool, quiet, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		time.Sleep(250 * time.Millisecond)
		_, firstNom, _, failed := h.Record()
		decided := 0
		for p := range pending {
			if _, ok := firstNom[p]; ok {
				decided++
			} else if _, ok := failed[p]; ok {
				decided++
			}
		}
		if decided == len(pending) && h.Quiet() >= quiet {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d pods decided after %s", decided, len(pending), timeout)
		}
	}
}

// runSecondWave waits until the first wave's nominated pods are bound, waits the wave's delay,
// reads the Nodes, creates the wave's pods, writes nodecast's input for the wave (the cluster as
// the wave began, its pods as the API server holds them) and records what Karpenter did for
// them. Returns "" or why the wave was not run.
func runSecondWave(ctx context.Context, h *controller.Harness, s *Scenario, w *secondWave, its cloudprovider.InstanceTypes, aws bool, outDir string, quiet, timeout time.Duration) (*ProvisionAnswer, string) {
	if e := waitBound(ctx, h, timeout); e != "" {
		return nil, e
	}
	time.Sleep(w.delay)
	objs, err := (&Scenario{Objects: w.docs, Kind: "provision"}).ParseObjects()
	if err != nil {
		return nil, err.Error()
	}
	// The Nodes as the wave begins (Karpenter changes none before the wave's batch closes), and
	// the NodeClaims still in flight (no Node yet): Karpenter's scheduler packs the wave's pods
	// onto those before it launches anything (run17's ctl-301-w2 was one missing).
	nodes, err := nodeDocs(ctx, h, false)
	if err != nil {
		return nil, err.Error()
	}
	inflight, err := inFlightClaimDocs(ctx, h)
	if err != nil {
		return nil, err.Error()
	}
	nodes = append(nodes, inflight...)
	launched := len(func() []controller.Launch { l, _, _, _ := h.Record(); return l }())
	pending := map[string]bool{}
	for _, p := range objs.Pods {
		pending[p.Namespace+"/"+p.Name] = true
	}
	// The earlier waves' pods still pending are in this wave's input too (clusterScenario).
	all := &corev1.PodList{}
	if err := h.Client.List(ctx, all); err != nil {
		return nil, err.Error()
	}
	for _, p := range all.Items {
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
			pending[p.Namespace+"/"+p.Name] = true
		}
	}
	if _, err := createPods(ctx, h, objs.Pods); err != nil {
		return nil, err.Error()
	}
	text, err := clusterScenario(ctx, h, s, w, nodes)
	if err != nil {
		return nil, err.Error()
	}
	w.file = filepath.Join(outDir, w.name+".yaml")
	if err := os.WriteFile(w.file, []byte(text), 0o644); err != nil {
		return nil, err.Error()
	}
	if err := settle(h, pending, quiet, timeout); err != nil {
		return nil, "timing (not settled): " + err.Error()
	}
	return controllerAnswer(h, its, aws, pending, launched), ""
}

// nodeDocs: the API server's Nodes not being deleted, as nodecast Node documents (labels, taints
// without Karpenter's unregistered taint and the extra keys, allocatable and capacity; the
// creation time when withCreation, which consolidation's ordering reads).
func nodeDocs(ctx context.Context, h *controller.Harness, withCreation bool, dropTaints ...string) ([]string, error) {
	nodes := &corev1.NodeList{}
	if err := h.Client.List(ctx, nodes); err != nil {
		return nil, err
	}
	var docs []string
	for _, n := range nodes.Items {
		if n.DeletionTimestamp != nil {
			continue
		}
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != v1.UnregisteredTaintKey && !slices.Contains(dropTaints, t.Key) {
				taints = append(taints, t)
			}
		}
		meta := map[string]any{"name": n.Name, "labels": n.Labels}
		if withCreation {
			meta["creationTimestamp"] = n.CreationTimestamp
		}
		b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": meta,
			"spec":   map[string]any{"taints": taints},
			"status": map[string]any{"allocatable": n.Status.Allocatable, "capacity": n.Status.Capacity}})
		if err != nil {
			return nil, err
		}
		docs = append(docs, string(b))
	}
	return docs, nil
}

// inFlightClaimDocs: the NodeClaims launched whose Node has not registered, as nodecast NodeClaim
// documents (labels, requirements, the launched instance's capacity and allocatable, Registered
// not yet True), which nodecast schedules onto as Karpenter's cluster state does.
func inFlightClaimDocs(ctx context.Context, h *controller.Harness) ([]string, error) {
	claims := &v1.NodeClaimList{}
	if err := h.Client.List(ctx, claims); err != nil {
		return nil, err
	}
	var docs []string
	for _, nc := range claims.Items {
		if nc.DeletionTimestamp != nil || nc.Status.NodeName != "" || nc.Status.ProviderID == "" {
			continue
		}
		b, err := yaml.Marshal(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
			"metadata": map[string]any{"name": nc.Name, "labels": nc.Labels, "creationTimestamp": nc.CreationTimestamp},
			"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
				"requirements": nc.Spec.Requirements, "taints": nc.Spec.Taints, "startupTaints": nc.Spec.StartupTaints},
			"status": map[string]any{"providerID": nc.Status.ProviderID, "capacity": nc.Status.Capacity, "allocatable": nc.Status.Allocatable,
				"conditions": []map[string]any{{"type": "Registered", "status": "Unknown", "lastTransitionTime": nc.CreationTimestamp}}}})
		if err != nil {
			return nil, err
		}
		docs = append(docs, string(b))
	}
	return docs, nil
}

// podDocs: the API server's pods not being deleted, bound or pending, as bare nodecast Pod
// documents (name, namespace, labels, spec; and what consolidation reads:
// annotations — do-not-disrupt, deletion cost —, owner references — the owner of a controlled
// pod —, and the UID and creation time). Karpenter's scheduling queue orders pods of equal CPU
// and memory requests by creation time, then UID (queue.go byCPUAndMemoryDescending); the API
// server's UIDs are random, so without them nodecast and the in-process Karpenter ordered such
// pods by namespace/name instead. That order decides which of equal pods gets the room left in
// a consolidation simulation, where the candidates' pods compete with the pods still pending
// (a NodePool limit, the last GPU): the pod Karpenter had placed in the waves, first in its
// order, lost to a pending twin named before it, and nodecast decided `none` where the running
// controller replaced (run12: ctl-79, 130, 148, 155; oracle/README.md). The waves' inputs are
// read the same way, once their pods exist: run14's ctl-185 and ctl-71-w2 were that order too.
func podDocs(ctx context.Context, h *controller.Harness) ([]string, error) {
	pods := &corev1.PodList{}
	if err := h.Client.List(ctx, pods); err != nil {
		return nil, err
	}
	var docs []string
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp != nil {
			continue
		}
		meta := map[string]any{"name": pod.Name, "namespace": pod.Namespace, "labels": pod.Labels}
		if len(pod.Annotations) > 0 {
			meta["annotations"] = pod.Annotations
		}
		if len(pod.OwnerReferences) > 0 {
			meta["ownerReferences"] = pod.OwnerReferences
		}
		meta["uid"] = pod.UID
		meta["creationTimestamp"] = pod.CreationTimestamp
		b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod.Spec.DeepCopy()})
		if err != nil {
			return nil, err
		}
		docs = append(docs, string(b))
	}
	return docs, nil
}

// clusterScenario: the second wave's nodecast input — the scenario's NodePools and DaemonSets,
// Karpenter's Nodes as the wave began (nodes: labels, taints, allocatable), and every pod as the
// API server holds it once the wave's pods exist, a bare pod with its UID and creation time:
// bound, still pending from the first wave, or the wave's own.
func clusterScenario(ctx context.Context, h *controller.Harness, s *Scenario, w *secondWave, nodes []string) (string, error) {
	docs := append([]string{w.base}, nodes...)
	// Bound pods, and the earlier waves' pods still pending: Karpenter retries them on every
	// pass, so they compete with the new wave for capacity and limits.
	pods, err := podDocs(ctx, h)
	if err != nil {
		return "", err
	}
	docs = append(docs, pods...)
	sc := map[string]any{"name": w.name, "description": "second wave of " + s.Name + " (oracle controller)", "reference": "generated",
		"kind": "provision", "catalog": s.Catalog, "objects": strings.Join(docs, "---\n"), "expect": map[string]any{}}
	return marshalScenario(sc)
}

// nothingToCompare: the harness could not finish the wave or phase (harnessErr; "timing…" when
// the cluster did not settle in time), or nodecast refused the input. res is classed and true is
// returned; otherwise res is untouched.
func nothingToCompare(res *ctlResult, harnessErr string, r NodecastRecord) bool {
	switch {
	case harnessErr != "":
		res.Class, res.Detail = "harness or timing", harnessErr
		if strings.HasPrefix(harnessErr, "timing") {
			res.Class = "timing (not settled)"
		}
	case r.Error != "":
		res.Class, res.Detail = "nodecast error", r.Error
	default:
		return false
	}
	return true
}

// compareWave compares a second wave: nodecast's answer on the cluster as the wave began against
// what the controller did, and the in-process oracle on the same input.
func compareWave(r NodecastRecord, cats map[int]*Catalog, w *secondWave) ctlResult {
	res := ctlResult{Name: w.name, Seconds: w.seconds, Karpenter: w.karpenter}
	if nothingToCompare(&res, w.err, r) {
		return res
	}
	var nc ProvisionAnswer
	if err := json.Unmarshal(r.Nodecast, &nc); err != nil {
		res.Class, res.Detail = "harness error", err.Error()
		return res
	}
	k := w.karpenter
	res.Claims, res.Failures = len(k.Claims), k.failures
	compareAll(&res, r, cats[catalogID(r)], &nc, k)
	classify(&res, r, cats)
	return res
}

// compareAll compares nodecast's answer nc with the controller's k, then runs the in-process
// oracle on the same scenario (catalog base) to say which side the controller differs from.
func compareAll(res *ctlResult, r NodecastRecord, base *Catalog, nc, k *ProvisionAnswer) {
	res.Class, res.Detail = CompareProvision(nc, k)
	res.Agree = res.Class == ""
	res.InProcess, res.NodecastIP = "not run", "not run"
	if ip, err := karpenterSide(r, base, catalogID(r)); err == nil {
		if a, ok := ip.(*ProvisionAnswer); ok {
			// The controller in nodecast's place: its claims carry the launch made, the in-process
			// ones only the launches their NodeClaims allow (controller_check.go, asLaunchSet).
			res.InProcess = orAgree(CompareProvision(asLaunchSet(k), a))
			res.NodecastIP = orAgree(CompareProvision(nc, a))
		}
	} else {
		res.InProcess = "error: " + err.Error()
	}
}

// classify a disagreement with the in-process oracle's help (controller_check.go): Karpenter's
// code called once per run, 24 runs and up to 300 while its answers vary. It gives both answers →
// a tie (two of Karpenter's own choices; the oracle's rule counts it as agreement); nodecast's
// only → the controller differs from one pass: batching or timing; the controller's only → a
// nodecast difference the oracle sees too; neither → mixed.
func classify(res *ctlResult, r NodecastRecord, cats map[int]*Catalog) {
	if res.Agree || res.InProcess == "not run" || strings.HasPrefix(res.InProcess, "error") {
		return
	}
	res.Verdict = inProcessTwoWays(r, cats, res.controller(), 24, defaultMaxRuns).verdict()
}

func orAgree(class, _ string) string {
	if class == "" {
		return "agree"
	}
	return class
}

// applyScenario creates the scenario's objects as a user would (NodePools first, waiting for
// Karpenter to mark them Ready; pods last, marked unschedulable as kube-scheduler would). Returns
// the objects to delete at the end besides pods, NodePools and NodeClaims.
func applyScenario(ctx context.Context, h *controller.Harness, objs *Objects) ([]client.Object, error) {
	var created []client.Object
	c := h.Client
	namespaces := map[string]bool{"default": true}
	ensureNS := func(ns string) error {
		if ns == "" || namespaces[ns] {
			return nil
		}
		namespaces[ns] = true
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	clean := func(o client.Object) {
		o.SetResourceVersion("")
		o.SetUID("")
		o.SetCreationTimestamp(metav1.Time{})
		o.SetManagedFields(nil)
	}
	for _, np := range objs.NodePools {
		np = np.DeepCopy()
		defaults(np)
		clean(np)
		np.Status = v1.NodePoolStatus{}
		if err := c.Create(ctx, np); err != nil {
			return created, fmt.Errorf("NodePool %s: %w", np.Name, err)
		}
	}
	// A namespaced object (already a copy): cleaned, its namespace made, created, remembered.
	create := func(kind string, o client.Object) error {
		clean(o)
		if err := ensureNS(o.GetNamespace()); err != nil {
			return err
		}
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("%s %s/%s: %w", kind, o.GetNamespace(), o.GetName(), err)
		}
		created = append(created, o)
		return nil
	}
	for _, ds := range objs.DaemonSets {
		if err := create("DaemonSet", ds.DeepCopy()); err != nil {
			return created, err
		}
	}
	for _, pdb := range objs.PDBs {
		if err := create("PDB", pdb.DeepCopy()); err != nil {
			return created, err
		}
	}
	// Karpenter provisions only for Ready NodePools (its nodepool readiness controller).
	deadline := time.Now().Add(30 * time.Second)
	for _, np := range objs.NodePools {
		for {
			got := &v1.NodePool{}
			if err := c.Get(ctx, client.ObjectKey{Name: np.Name}, got); err != nil {
				return created, err
			}
			if got.StatusConditions().Get(status.ConditionReady).IsTrue() {
				break
			}
			if time.Now().After(deadline) {
				return created, fmt.Errorf("NodePool %s not Ready after 30s", np.Name)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if _, err := createPods(ctx, h, objs.Pods); err != nil {
		return created, err
	}
	return created, nil
}

// createPods creates pending pods, then marks them unschedulable as kube-scheduler would: one
// wave, every pod turning unschedulable within Karpenter's batch idle window.
func createPods(ctx context.Context, h *controller.Harness, in []*corev1.Pod) ([]*corev1.Pod, error) {
	c := h.Client
	var pods []*corev1.Pod
	h.BeginWave()
	for _, p := range in {
		if p.Spec.NodeName != "" {
			return pods, fmt.Errorf("pod %s/%s is bound: the harness starts from an empty cluster", p.Namespace, p.Name)
		}
		p = p.DeepCopy()
		p.SetResourceVersion("")
		p.SetUID("")
		p.SetCreationTimestamp(metav1.Time{})
		p.Status = corev1.PodStatus{}
		// The API server requires a limit equal to the request for an extended resource
		// (nvidia.com/gpu); the generators write requests only, and requests are what both
		// sides read.
		for i := range p.Spec.Containers {
			r := &p.Spec.Containers[i].Resources
			for name, q := range r.Requests {
				if strings.Contains(string(name), "/") && !strings.HasPrefix(string(name), "kubernetes.io/") {
					if r.Limits == nil {
						r.Limits = corev1.ResourceList{}
					}
					if _, ok := r.Limits[name]; !ok {
						r.Limits[name] = q
					}
				}
			}
		}
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return pods, err
		}
		if err := c.Create(ctx, p); err != nil {
			return pods, fmt.Errorf("Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		h.NotePodCreated(p)
		pods = append(pods, p)
	}
	for _, p := range pods {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/0 nodes are available", LastTransitionTime: metav1.Now()}}
		if err := c.Status().Update(ctx, p); err != nil {
			return pods, fmt.Errorf("Pod %s/%s status: %w", p.Namespace, p.Name, err)
		}
	}
	return pods, nil
}

// controllerAnswer: what Karpenter's controller did, in the oracle's normalised answer. Each
// launched NodeClaim with the pods first nominated to it; its options are its instance-type
// requirement; its launch the set the AWS provider may launch (the oracle's tie rule, catalog.go
// launch) under the NodeClaim's requirements.
func controllerAnswer(h *controller.Harness, its cloudprovider.InstanceTypes, aws bool, pending map[string]bool, from int) *ProvisionAnswer {
	launches, firstNom, _, failed := h.Record()
	launches = launches[from:]
	byName := map[string]cloudprovider.InstanceTypes{}
	a := &ProvisionAnswer{Claims: []Claim{}, Existing: map[string]string{}, Unschedulable: []string{}}
	index := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		index[it.Name] = it
	}
	launchedHere := map[string]bool{}
	for _, l := range launches {
		launchedHere[l.NodeClaim.Name] = true
	}
	pods := map[string][]string{}
	for p, target := range firstNom {
		if !pending[p] {
			continue
		}
		// "nodeclaim/X" (a NodeClaim of this pass), "nodeclaim/X, node/Y" (one with its Node:
		// existing capacity unless X was launched in this wave) or "node/Y".
		claim, node := "", ""
		for _, part := range strings.Split(target, ", ") {
			switch kind, name, _ := strings.Cut(part, "/"); kind {
			case "nodeclaim":
				claim = name
			case "node":
				node = name
			}
		}
		switch {
		case claim != "" && launchedHere[claim]:
			pods[claim] = append(pods[claim], p)
		case node != "":
			a.Existing[p] = node
		case claim != "":
			// An in-flight NodeClaim of an earlier wave, not yet registered.
			a.Existing[p] = claim
		}
	}
	a.failures = map[string]string{}
	for p, msg := range failed {
		if pending[p] {
			a.failures[p] = msg
		}
	}
	for _, l := range launches {
		nc := l.NodeClaim
		reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
		c := Claim{NodePool: nc.Labels[v1.NodePoolLabelKey], Pods: pods[nc.Name]}
		if len(c.Pods) == 0 {
			// No pod of this wave was first nominated to it: a consolidation replacement for the
			// earlier pods (disruption, not this wave's provisioning), reported apart.
			a.Replacements++
			continue
		}
		sort.Strings(c.Pods)
		var opts cloudprovider.InstanceTypes
		for _, name := range reqs.Get(corev1.LabelInstanceTypeStable).Values() {
			c.Options = append(c.Options, name)
			if it := index[name]; it != nil {
				opts = append(opts, it)
			}
		}
		sort.Strings(c.Options)
		byName[nc.Name] = opts
		c.Launch = launch(opts, reqs, aws)
		c.InstanceType = l.Created.Labels[corev1.LabelInstanceTypeStable]
		c.Zone = l.Created.Labels[corev1.LabelTopologyZone]
		c.CapacityType = l.Created.Labels[v1.CapacityTypeLabelKey]
		a.Claims = append(a.Claims, c)
	}
	sortClaims(a.Claims)
	for p := range pending {
		if _, ok := firstNom[p]; !ok {
			if _, ok := failed[p]; ok {
				a.Unschedulable = append(a.Unschedulable, p)
			}
		}
	}
	sort.Strings(a.Unschedulable)
	return a
}

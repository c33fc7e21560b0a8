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
)

// generateController is scenario `ctl-<seed>`: the provision generator's NodePools, DaemonSets
// and workloads (GPU and not) on an empty cluster (Karpenter's controller would have to own any
// existing node; the harness starts every scenario from none), Karpenter's default settings
// (one operator serves every scenario, so its flags cannot change per scenario). Own stream.
func generateController(seed int64) (string, error) {
	g := &gen{r: rand.New(rand.NewSource(seed*7919 + 36)), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	g.zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	catalog := any("aws-us-east-1")
	if g.chance(0.2) {
		c := map[string]any{"source": "aws-us-east-1"}
		if g.chance(0.5) {
			g.zones = g.zones[:2]
			c["zones"] = g.zones
		}
		c["unavailable"] = []any{map[string]any{"instanceType": g.pick("g5.xlarge", "g6.xlarge", "m5.large", "c6a.large"), "capacityType": "spot"},
			map[string]any{"zone": g.zones[0], "capacityType": g.pick("spot", "on-demand")}}
		catalog = c
	}
	nPools := 1 + g.r.Intn(3)
	for i := 0; i < nPools; i++ {
		g.nodePool(i, false)
	}
	g.daemonSets()
	g.workloads(1+g.r.Intn(8), "default")
	return marshalScenario(g.scenario("ctl", seed, "provision", catalog))
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
}

func cmdController(args []string) error {
	fs := flag.NewFlagSet("controller", flag.ExitOnError)
	n := fs.Int("n", 200, "scenarios")
	seed := fs.Int64("seed", 1, "first seed")
	assets := fs.String("assets", os.Getenv("KUBEBUILDER_ASSETS"), "envtest's kube-apiserver and etcd")
	crds := fs.String("crds", "", "comma-separated CRD directories (Karpenter's pkg/apis/crds and pkg/test/v1alpha1/crds)")
	idle := fs.Duration("batch-idle", time.Second, "Karpenter's --batch-idle-duration")
	max := fs.Duration("batch-max", 10*time.Second, "Karpenter's --batch-max-duration")
	quiet := fs.Duration("quiet", 3*time.Second, "a scenario is settled once Karpenter has launched or nominated nothing for this long")
	timeout := fs.Duration("timeout", 90*time.Second, "give up on a scenario after this long")
	outDir := fs.String("out", "out/controller", "scenarios, logs and results")
	verbose := fs.Bool("v", false, "print every disagreement")
	_ = fs.Parse(args)
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	var files []string
	for s := *seed; s < *seed+int64(*n); s++ {
		text, err := generateController(s)
		if err != nil {
			return err
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
	agree, classes := 0, map[string]int{}
	start := time.Now()
	for i, r := range recs {
		res := runControllerScenario(ctx, h, r, cats, *quiet, *timeout)
		if res.Agree {
			agree++
		} else {
			classes[res.Class]++
			if *verbose {
				fmt.Printf("%s: %s: %s (in-process oracle vs controller: %s; nodecast vs in-process: %s)\n", res.Name, res.Class, res.Detail, res.InProcess, res.NodecastIP)
			}
		}
		b, _ := json.Marshal(res)
		fmt.Fprintln(results, string(b))
		if (i+1)%10 == 0 {
			fmt.Printf("%d scenarios, %d agree (%s)\n", i+1, agree, time.Since(start).Round(time.Second))
		}
	}
	fmt.Printf("controller: %d of %d scenarios agree (%s)\n", agree, len(recs), time.Since(start).Round(time.Second))
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %4d  %s\n", classes[k], k)
	}
	if agree != len(recs) {
		return fmt.Errorf("%d disagreements", len(recs)-agree)
	}
	return nil
}

func runControllerScenario(ctx context.Context, h *controller.Harness, r NodecastRecord, cats map[int]*Catalog, quiet, timeout time.Duration) ctlResult {
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
	h.SetInstanceTypes(its)
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
	// Settled: every pending pod nominated or failed, and Karpenter quiet for `quiet`.
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
			break
		}
		if time.Now().After(deadline) {
			return fail("timing (not settled)", fmt.Errorf("%d of %d pods decided after %s", decided, len(pending), timeout))
		}
	}
	k := controllerAnswer(h, its, cat.aws(), pending)
	res.Karpenter, res.Claims = k, len(k.Claims)
	var nc ProvisionAnswer
	if err := json.Unmarshal(r.Nodecast, &nc); err != nil {
		return fail("harness error", err)
	}
	res.Class, res.Detail = CompareProvision(&nc, k)
	res.Agree = res.Class == ""
	// The in-process oracle on the same scenario: which side the controller's answer differs from.
	res.InProcess, res.NodecastIP = "not run", "not run"
	if ip, err := karpenterSide(r, base, catalogID(r)); err == nil {
		if a, ok := ip.(*ProvisionAnswer); ok {
			res.InProcess = orAgree(CompareProvision(a, k))
			res.NodecastIP = orAgree(CompareProvision(&nc, a))
		}
	} else {
		res.InProcess = "error: " + err.Error()
	}
	res.Seconds = time.Since(t0).Seconds()
	return res
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
	for _, ds := range objs.DaemonSets {
		ds = ds.DeepCopy()
		clean(ds)
		if err := ensureNS(ds.Namespace); err != nil {
			return created, err
		}
		if err := c.Create(ctx, ds); err != nil {
			return created, fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
		}
		created = append(created, ds)
	}
	for _, pdb := range objs.PDBs {
		pdb = pdb.DeepCopy()
		clean(pdb)
		if err := ensureNS(pdb.Namespace); err != nil {
			return created, err
		}
		if err := c.Create(ctx, pdb); err != nil {
			return created, fmt.Errorf("PDB %s/%s: %w", pdb.Namespace, pdb.Name, err)
		}
		created = append(created, pdb)
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
	var pods []*corev1.Pod
	for _, p := range objs.Pods {
		if p.Spec.NodeName != "" {
			return created, fmt.Errorf("pod %s/%s is bound: the harness starts from an empty cluster", p.Namespace, p.Name)
		}
		p = p.DeepCopy()
		clean(p)
		p.Status = corev1.PodStatus{}
		if err := ensureNS(p.Namespace); err != nil {
			return created, err
		}
		if err := c.Create(ctx, p); err != nil {
			return created, fmt.Errorf("Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		pods = append(pods, p)
	}
	// One wave: every pod turns unschedulable within Karpenter's batch idle window.
	for _, p := range pods {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/0 nodes are available", LastTransitionTime: metav1.Now()}}
		if err := c.Status().Update(ctx, p); err != nil {
			return created, fmt.Errorf("Pod %s/%s status: %w", p.Namespace, p.Name, err)
		}
	}
	return created, nil
}

// controllerAnswer: what Karpenter's controller did, in the oracle's normalised answer. Each
// launched NodeClaim with the pods first nominated to it; its options are its instance-type
// requirement; its launch the set the AWS provider may launch (the oracle's tie rule, catalog.go
// launch) under the NodeClaim's requirements.
func controllerAnswer(h *controller.Harness, its cloudprovider.InstanceTypes, aws bool, pending map[string]bool) *ProvisionAnswer {
	launches, firstNom, _, failed := h.Record()
	byName := map[string]cloudprovider.InstanceTypes{}
	a := &ProvisionAnswer{Claims: []Claim{}, Existing: map[string]string{}, Unschedulable: []string{}}
	index := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		index[it.Name] = it
	}
	pods := map[string][]string{}
	for p, target := range firstNom {
		if !pending[p] {
			continue
		}
		for _, part := range strings.Split(target, ", ") {
			if kind, name, _ := strings.Cut(part, "/"); kind == "nodeclaim" {
				pods[name] = append(pods[name], p)
			} else if kind == "node" && !strings.Contains(target, "nodeclaim/") {
				a.Existing[p] = name
			}
		}
	}
	for _, l := range launches {
		nc := l.NodeClaim
		reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
		c := Claim{NodePool: nc.Labels[v1.NodePoolLabelKey], Pods: pods[nc.Name]}
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

package main

// Disruption by the running controller (issue 36, part 3): once a scenario's waves have settled,
// some of its pods are deleted (a generated share), so nodes turn empty or underutilised, and
// Karpenter's own disruption controller acts: its 10 s poll, its methods in order, budgets, the
// 15 s validation of a command. Its first decision (the NodeClaims it marks, and for a replace the
// replacement it launches) is compared with `nodecast consolidate` on the cluster as it stood when
// Karpenter decided, read from the API server as a `disrupt` scenario, by the oracle's own rule
// (CompareDisrupt), and the in-process Karpenter answers the same file to classify a difference.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/nodecast/nodecast/oracle/controller"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// disruptPlan: what a scenario's disruption phase does, drawn from its own stream (the
// provisioning scenario's stream is left as it was, so its waves are the same as before).
type disruptPlan struct {
	// The share of the bound pods deleted, which ones, every NodePool's consolidateAfter and
	// its one node budget ("" = Karpenter's default, 10%).
	fraction         float64
	pick             *rand.Rand
	consolidateAfter string
	budget           string
	// Filled by the run: the pods deleted, nodecast's input, what Karpenter decided.
	base      string
	name      string
	file      string
	deleted   []string
	karpenter *DisruptAnswer
	err       string
	// Wall time of the whole phase, and from the moment the budgets opened to Karpenter's mark.
	seconds, decide float64
}

// nominationHold: Karpenter's nomination window (2 × --batch-max-duration = 20 s; at least
// 10 s) and a margin.
const nominationHold = 21 * time.Second

func generateDisruptPlan(seed int64, base string) *disruptPlan {
	r := rand.New(rand.NewSource(seed*7919 + 3637))
	return &disruptPlan{
		fraction:         []float64{0.25, 0.5, 0.75, 1}[r.Intn(4)],
		consolidateAfter: []string{"0s", "5s"}[r.Intn(2)],
		budget:           []string{"", "1", "2", "50%", "100%"}[r.Intn(5)],
		pick:             r,
		base:             base,
	}
}

// disruption is every NodePool's disruption block in the phase; budget "0" freezes the pools.
func (p *disruptPlan) disruption(budget string) v1.Disruption {
	if budget == "" {
		budget = "10%"
	}
	return v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized,
		ConsolidateAfter: v1.MustParseNillableDuration(p.consolidateAfter), Budgets: []v1.Budget{{Nodes: budget}}}
}

// setDisruption writes d into every NodePool (the disruption block is not in the NodePool's
// template hash: no drift follows), all between two passes of Karpenter's disruption controller.
func setDisruption(ctx context.Context, h *controller.Harness, d v1.Disruption) error {
	return h.SetBudgetsAtOnce(ctx, func() error { return writeDisruption(ctx, h, d) })
}

func writeDisruption(ctx context.Context, h *controller.Harness, d v1.Disruption) error {
	for attempt := 0; ; attempt++ {
		pools := &v1.NodePoolList{}
		if err := h.Client.List(ctx, pools); err != nil {
			return err
		}
		var err error
		for i := range pools.Items {
			np := &pools.Items[i]
			np.Spec.Disruption = *d.DeepCopy()
			if err = h.Client.Update(ctx, np); err != nil {
				break
			}
		}
		if err == nil {
			h.NoteBudgets(d)
		}
		if err == nil || !apierrors.IsConflict(err) || attempt == 10 {
			return err
		}
	}
}

// waitBound waits until every pod Karpenter nominated is bound; "" or why not.
func waitBound(ctx context.Context, h *controller.Harness, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for {
		pods := &corev1.PodList{}
		if err := h.Client.List(ctx, pods); err != nil {
			return err.Error()
		}
		_, _, latest, _ := h.Record()
		unbound := 0
		for i := range pods.Items {
			p := &pods.Items[i]
			if t, ok := latest[p.Namespace+"/"+p.Name]; ok && t != "" && p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
				unbound++
			}
		}
		if unbound == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("timing: %d nominated pods not bound after %s", unbound, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitStill waits until no NodeClaim is being deleted or launching (a disruption command of the
// waves still in flight) and the nominated pods are bound.
func waitStill(ctx context.Context, h *controller.Harness, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for {
		claims := &v1.NodeClaimList{}
		if err := h.Client.List(ctx, claims); err != nil {
			return err.Error()
		}
		busy := 0
		for i := range claims.Items {
			nc := &claims.Items[i]
			if nc.DeletionTimestamp != nil || !nc.StatusConditions().Get(v1.ConditionTypeInitialized).IsTrue() {
				busy++
			}
		}
		if busy == 0 {
			return waitBound(ctx, h, time.Until(deadline))
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("timing: %d NodeClaims still launching or deleting after %s", busy, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// runDisruption: the phase. The pools are frozen (budget 0: Karpenter computes, but a command
// fails its validation) while the waves' own disruptions end and the pods are deleted; nodecast's
// input is read once the NodeClaims are consolidatable; then the budgets open and the first
// NodeClaims Karpenter marks are its decision. A decision needs its 10 s poll and 15 s validation.
func runDisruption(ctx context.Context, h *controller.Harness, s *Scenario, p *disruptPlan, its cloudprovider.InstanceTypes, aws bool, outDir string, timeout time.Duration) {
	t0 := time.Now()
	defer func() { p.seconds = time.Since(t0).Seconds() }()
	if err := setDisruption(ctx, h, p.disruption("0")); err != nil {
		p.err = "harness: freezing the NodePools: " + err.Error()
		return
	}
	if e := waitStill(ctx, h, timeout); e != "" {
		p.err = e
		return
	}
	before := h.Disrupted()
	launched := len(func() []controller.Launch { l, _, _, _ := h.Record(); return l }())
	pods := &corev1.PodList{}
	if err := h.Client.List(ctx, pods); err != nil {
		p.err = err.Error()
		return
	}
	var bound []*corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].Spec.NodeName != "" && pods.Items[i].DeletionTimestamp == nil {
			bound = append(bound, &pods.Items[i])
		}
	}
	sort.Slice(bound, func(i, j int) bool {
		return bound[i].Namespace+"/"+bound[i].Name < bound[j].Namespace+"/"+bound[j].Name
	})
	n := int(math.Ceil(p.fraction * float64(len(bound))))
	for _, i := range p.pick.Perm(len(bound))[:n] {
		pod := bound[i]
		if err := h.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
			p.err = err.Error()
			return
		}
		p.deleted = append(p.deleted, pod.Namespace+"/"+pod.Name)
		h.NotePodDeleted(pod.Namespace + "/" + pod.Name)
	}
	sort.Strings(p.deleted)
	// consolidateAfter counts from a NodeClaim's last pod event: wait it out, then until
	// Karpenter's NodeClaim disruption controller has marked every NodeClaim Consolidatable.
	after := v1.MustParseNillableDuration(p.consolidateAfter)
	time.Sleep(*after.Duration + time.Second)
	// Karpenter holds a node it nominated a pod to for 2 × the batch max window (20 s): no
	// disruption candidate, and a command's validation drops it. nodecast's input does not carry
	// nominations (a cluster at rest has none), so the phase waits them out.
	for hold := time.Now().Add(2 * nominationHold); h.SinceNomination() < nominationHold && time.Now().Before(hold); {
		time.Sleep(250 * time.Millisecond)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		claims := &v1.NodeClaimList{}
		if err := h.Client.List(ctx, claims); err != nil {
			p.err = err.Error()
			return
		}
		ready := true
		for i := range claims.Items {
			if !claims.Items[i].StatusConditions().Get(v1.ConditionTypeConsolidatable).IsTrue() {
				ready = false
			}
		}
		if ready || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	text, err := clusterDisruptScenario(ctx, h, s, p)
	if err != nil {
		p.err = "harness: " + err.Error()
		return
	}
	p.file = filepath.Join(outDir, p.name+".yaml")
	if err := os.WriteFile(p.file, []byte(text), 0o644); err != nil {
		p.err = err.Error()
		return
	}
	open, logFrom := time.Now(), h.LogSize()
	if err := setDisruption(ctx, h, p.disruption(p.budget)); err != nil {
		p.err = "harness: opening the budgets: " + err.Error()
		return
	}
	// The poll (10 s), the candidates' computation and the 15 s validation: 45 s is ample; a
	// controller that marks nothing by then decided nothing.
	var first time.Time
	for first.IsZero() && time.Since(open) < 45*time.Second {
		time.Sleep(250 * time.Millisecond)
		for node, at := range h.Disrupted() {
			if _, old := before[node]; !old && (first.IsZero() || at.Before(first)) {
				first = at
			}
		}
	}
	if first.IsZero() {
		p.karpenter = &DisruptAnswer{Decision: "none", Nodes: []string{}, Method: "controller"}
		p.decide = time.Since(open).Seconds()
		return
	}
	p.decide = first.Sub(open).Seconds()
	// The command's replacements are created right after its candidates are marked.
	time.Sleep(3 * time.Second)
	p.karpenter = controllerDisruption(ctx, h, before, first, launched, logFrom, its, aws)
}

// controllerDisruption: Karpenter's first command in the oracle's form — the Nodes marked within
// 2 s of the first mark (one command marks its candidates together; the next needs another
// validation), its reason (the NodeClaims' DisruptionReason condition), its replacements.
func controllerDisruption(ctx context.Context, h *controller.Harness, before map[string]time.Time, first time.Time, launched int, logFrom int64, its cloudprovider.InstanceTypes, aws bool) *DisruptAnswer {
	a := &DisruptAnswer{Decision: "delete", Nodes: []string{}, Method: "controller"}
	for node, at := range h.Disrupted() {
		if _, old := before[node]; !old && at.Sub(first) <= 2*time.Second {
			a.Nodes = append(a.Nodes, node)
		}
	}
	sort.Strings(a.Nodes)
	claims := &v1.NodeClaimList{}
	if err := h.Client.List(ctx, claims); err != nil {
		a.Error = err.Error()
		return a
	}
	for i := range claims.Items {
		nc := &claims.Items[i]
		if c := nc.StatusConditions().Get(v1.ConditionTypeDisruptionReason); c != nil && c.IsTrue() && containsString(a.Nodes, nc.Status.NodeName) {
			a.Reason = strings.ToLower(c.Reason)
		}
	}
	launches, _, _, _ := h.Record()
	index := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		index[it.Name] = it
	}
	// The command as Karpenter logged it, when its log has it: its replacement count decides,
	// and its replacement is the first launch from the mark on (within ten seconds).
	if logged := loggedCommand(h, logFrom, a.Nodes); logged != nil {
		a.Replacements = logged.Replacements
		if a.Replacements > 0 {
			a.Decision = "replace"
			for _, l := range launches[launched:] {
				if !l.At.Before(first.Add(-time.Second)) && l.At.Before(first.Add(10*time.Second)) {
					c := launchedClaim(l, index, aws)
					a.Replacement = &c
					break
				}
			}
		}
		return a
	}
	for _, l := range launches[launched:] {
		// Without the log line (a log that could not be read): the launch window. The queue creates a command's replacements in the same call that marks its candidates
		// (queue.go StartCommand: taint, then CreateNodeClaims), so they launch within
		// milliseconds of the first mark. A NodeClaim launched a second or more after it is the
		// provisioner's, for pending pods the command made room for (a NodePool limit the marked
		// Node no longer uses up; its batch waits out the 1 s idle window first): whole run of
		// 2026-11-29, ctl-30, 41, 115, 152, 208 (empty deletes, logged by Karpenter with
		// replacement-node-count 0) and ctl-121, 128 (one replacement, two launches). An Empty
		// command never has replacements (emptiness.go).
		if l.At.Before(first.Add(-time.Second)) || !l.At.Before(first.Add(time.Second)) || a.Reason == "empty" {
			continue
		}
		a.Decision = "replace"
		a.Replacements++
		if a.Replacement == nil {
			c := launchedClaim(l, index, aws)
			a.Replacement = &c
		}
	}
	return a
}

// loggedCommand: the first command Karpenter logged from `from` on whose candidates are `nodes`.
func loggedCommand(h *controller.Harness, from int64, nodes []string) *controller.Command {
	cmds, err := h.Commands(from)
	if err != nil {
		return nil
	}
	for i := range cmds {
		if reflect.DeepEqual(cmds[i].Nodes, nodes) {
			return &cmds[i]
		}
	}
	return nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// launchedClaim: a NodeClaim Karpenter launched, as the oracle's Claim (its instance-type options,
// the launches the AWS provider may make for it, and the fake provider's pick).
func launchedClaim(l controller.Launch, index map[string]*cloudprovider.InstanceType, aws bool) Claim {
	nc := l.NodeClaim
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
	c := Claim{NodePool: nc.Labels[v1.NodePoolLabelKey]}
	var opts cloudprovider.InstanceTypes
	for _, name := range reqs.Get(corev1.LabelInstanceTypeStable).Values() {
		c.Options = append(c.Options, name)
		if it := index[name]; it != nil {
			opts = append(opts, it)
		}
	}
	sort.Strings(c.Options)
	c.Launch = launch(opts, reqs, aws)
	c.InstanceType = l.Created.Labels[corev1.LabelInstanceTypeStable]
	c.Zone = l.Created.Labels[corev1.LabelTopologyZone]
	c.CapacityType = l.Created.Labels[v1.CapacityTypeLabelKey]
	return c
}

// clusterDisruptScenario: nodecast's input for the phase, the cluster as it stands — the scenario's
// NodePools with the phase's disruption block (the budgets about to open), its DaemonSets,
// Karpenter's Nodes and NodeClaims (labels, creation, last pod event), the pods — at the
// API server's time now.
func clusterDisruptScenario(ctx context.Context, h *controller.Harness, s *Scenario, p *disruptPlan) (string, error) {
	var docs []string
	for _, doc := range strings.Split(p.base, "---\n") {
		if !strings.Contains(doc, "kind: NodePool") {
			docs = append(docs, doc)
			continue
		}
		np := &v1.NodePool{}
		if err := yaml.Unmarshal([]byte(doc), np); err != nil {
			return "", err
		}
		np.Spec.Disruption = p.disruption(p.budget)
		b, err := yaml.Marshal(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
			"metadata": map[string]any{"name": np.Name}, "spec": np.Spec})
		if err != nil {
			return "", err
		}
		docs = append(docs, string(b))
	}
	add := func(doc map[string]any) error {
		b, err := yaml.Marshal(doc)
		docs = append(docs, string(b))
		return err
	}
	nodes, err := nodeDocs(ctx, h, true, v1.DisruptedTaintKey)
	if err != nil {
		return "", err
	}
	docs = append(docs, nodes...)
	claims := &v1.NodeClaimList{}
	if err := h.Client.List(ctx, claims); err != nil {
		return "", err
	}
	for _, nc := range claims.Items {
		if nc.DeletionTimestamp != nil {
			continue
		}
		st := map[string]any{"nodeName": nc.Status.NodeName}
		if !nc.Status.LastPodEventTime.IsZero() {
			st["lastPodEventTime"] = nc.Status.LastPodEventTime
		}
		if err := add(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
			"metadata": map[string]any{"name": nc.Name, "labels": nc.Labels, "creationTimestamp": nc.CreationTimestamp},
			"spec":     map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
			"status":   st}); err != nil {
			return "", err
		}
	}
	// Bound pods, and pods still pending (Karpenter's consolidation schedules them with the
	// candidates' pods).
	pods, err := podDocs(ctx, h)
	if err != nil {
		return "", err
	}
	docs = append(docs, pods...)
	now := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	sc := map[string]any{"name": p.name, "description": "disruption after " + s.Name + " (oracle controller): deleted " + strings.Join(trunc(p.deleted), ", "),
		"reference": "generated", "kind": "disrupt", "catalog": s.Catalog, "clock": map[string]any{"now": now.Format(time.RFC3339)},
		"objects": strings.Join(docs, "---\n"), "expect": map[string]any{}}
	return marshalScenario(sc)
}

// compareDisruption: nodecast's consolidate on the phase's input against the controller's first
// decision, with the in-process Karpenter on the same input to classify a difference.
func compareDisruption(r NodecastRecord, cats map[int]*Catalog, p *disruptPlan) ctlResult {
	res := ctlResult{Name: p.name, Seconds: p.seconds, Disrupt: p.karpenter, Decide: p.decide}
	if nothingToCompare(&res, p.err, r) {
		return res
	}
	var nc DisruptAnswer
	if err := json.Unmarshal(r.Nodecast, &nc); err != nil {
		res.Class, res.Detail = "harness error", err.Error()
		return res
	}
	if nc.Nodes == nil {
		nc.Nodes = []string{}
	}
	k := p.karpenter
	res.Class, res.Detail = CompareDisrupt(&nc, k)
	res.Agree = res.Class == ""
	res.InProcess, res.NodecastIP = "not run", "not run"
	if ip, err := karpenterSide(r, cats[catalogID(r)], catalogID(r)); err == nil {
		if a, ok := ip.(*DisruptAnswer); ok {
			res.InProcess = orAgree(CompareDisrupt(asLaunchSetDisrupt(k), a)) // the controller in nodecast's place, as in compareAll
			res.NodecastIP = orAgree(CompareDisrupt(&nc, a))
		}
	} else {
		res.InProcess = "error: " + err.Error()
	}
	classify(&res, r, cats)
	return res
}

// record appends what the controller decided to <out>/disruptions.jsonl at once: the comparison
// with nodecast runs at the process's end, and a run stopped before it keeps these.
func (p *disruptPlan) record(outDir string) {
	b, err := json.Marshal(map[string]any{"name": p.name, "file": p.file, "deleted": p.deleted, "karpenter": p.karpenter,
		"error": p.err, "seconds": p.seconds, "decideSeconds": p.decide})
	if err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(outDir, "disruptions.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", p.name, err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, string(b))
}

// compareDisruptions: nodecast on every phase's input, each compared (count records it and
// adds to the run's totals); returns the disruption figure apart.
func compareDisruptions(plans map[string]*disruptPlan, count func(ctlResult), agree, total *int) (int, int, error) {
	var files []string
	byName := map[string]*disruptPlan{}
	var failed []*disruptPlan
	for _, p := range plans {
		switch {
		case p.file != "":
			files = append(files, p.file)
			byName[p.name] = p
		case p.name != "":
			failed = append(failed, p)
		}
	}
	sort.Strings(files)
	a0, t0 := *agree, *total
	for _, p := range failed {
		*total++
		count(compareDisruption(NodecastRecord{}, nil, p))
	}
	if len(files) > 0 {
		cats, recs, err := nodecastSide(defaultConformance(), files)
		if err != nil {
			return 0, 0, err
		}
		for _, r := range recs {
			if p := byName[r.Name]; p != nil {
				*total++
				count(compareDisruption(r, cats, p))
			}
		}
	}
	return *agree - a0, *total - t0, nil
}

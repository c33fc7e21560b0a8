package main

// Karpenter's disruption suite as a differential corpus (issue 39): one decision the disruption
// controller reached inside Karpenter's own tests (oracle/suite/dump_disruption.go.in), turned into
// a nodecast `disrupt` scenario (FORMAT §6) answered at the dumped clock, and Karpenter's decision
// in the harness's normalised form (DisruptAnswer, as for generated scenarios).

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

type suiteStateNodeD struct {
	Name              string        `json:"name"`
	ProviderID        string        `json:"providerID"`
	Node              *corev1.Node  `json:"node,omitempty"`
	NodeClaim         *v1.NodeClaim `json:"nodeClaim,omitempty"`
	Initialized       bool          `json:"initialized"`
	Managed           bool          `json:"managed"`
	MarkedForDeletion bool          `json:"markedForDeletion"`
	Nominated         bool          `json:"nominated"`
	Queued            bool          `json:"queued"`
	BufferPods        int           `json:"bufferPods,omitempty"`
}

type suiteReplacement struct {
	NodePool     string                                    `json:"nodePool"`
	Options      []string                                  `json:"options"`
	Requirements []v1.NodeSelectorRequirementWithMinValues `json:"requirements"`
}

type suiteCommand struct {
	Decision     string             `json:"decision"`
	Candidates   []string           `json:"candidates"`
	Replacements []suiteReplacement `json:"replacements"`
}

// SuiteDecision is one dumped decision of the disruption controller (field for field the types of
// dump_disruption.go.in).
type SuiteDecision struct {
	Spec          string                         `json:"spec"`
	File          string                         `json:"file"`
	Now           time.Time                      `json:"now"`
	Method        string                         `json:"method"`
	Reason        string                         `json:"reason"`
	Commands      []suiteCommand                 `json:"commands"`
	Nodes         []suiteStateNodeD              `json:"nodes"`
	NodePools     []v1.NodePool                  `json:"nodePools"`
	NodeClaims    []v1.NodeClaim                 `json:"nodeClaims"`
	APINodes      []corev1.Node                  `json:"apiNodes"`
	Pods          []corev1.Pod                   `json:"pods"`
	PDBs          []policyv1.PodDisruptionBudget `json:"pdbs"`
	DaemonSets    []appsv1.DaemonSet             `json:"daemonSets"`
	InstanceTypes map[string][]suiteInstanceType `json:"instanceTypes"`
	Storage       map[string]int                 `json:"storage"`
	Settings      map[string]any                 `json:"settings"`
	// What changed between the start of Reconcile's methods and the dump (dumps since issue
	// 39's sixth round; nil before), and the clock at that start.
	ChangedDuringReconcile []string  `json:"changedDuringReconcile"`
	ReconcileStarted       time.Time `json:"reconcileStarted"`
	DumpError              string    `json:"dumpError,omitempty"`
}

// pools: the NodePools the decision can depend on. A NodePool being deleted that no NodeClaim or
// Node belongs to is left out: the suite leaves one behind (a static NodePool whose finalizer no
// controller of the suite removes, present from then on in every spec), and with no node it
// gives no method a candidate, a budget or a replacement (a deleting NodePool launches nothing).
func (d *SuiteDecision) pools() []v1.NodePool {
	used := map[string]bool{}
	for _, nc := range d.NodeClaims {
		used[nc.Labels[v1.NodePoolLabelKey]] = true
	}
	for _, n := range d.APINodes {
		used[n.Labels[v1.NodePoolLabelKey]] = true
	}
	var out []v1.NodePool
	for _, np := range d.NodePools {
		if np.DeletionTimestamp.IsZero() || used[np.Name] {
			out = append(out, np)
		}
	}
	return out
}

// pass: the decision's inputs in the provisioning pass's shape, to reuse its catalog and settings.
func (d *SuiteDecision) pass() *SuitePass {
	its := map[string][]suiteInstanceType{}
	for _, np := range d.pools() {
		if t, ok := d.InstanceTypes[np.Name]; ok {
			its[np.Name] = t
		}
	}
	p := &SuitePass{Spec: d.Spec, File: d.File, NodePools: d.pools(), InstanceTypes: its, DaemonSets: d.DaemonSets, Settings: d.Settings}
	for i := range d.Pods {
		if d.Pods[i].Spec.NodeName == "" {
			p.Pods = append(p.Pods, &d.Pods[i])
		} else {
			p.BoundPods = append(p.BoundPods, d.Pods[i])
		}
	}
	return p
}

// Convert turns a decision into a disrupt scenario, or says why it is not comparable.
func (d *SuiteDecision) Convert(name string) (*SuiteCase, error) {
	if d.DumpError != "" {
		return nil, exclude("harness: dump incomplete", "%s", d.DumpError)
	}
	if err := d.checkModelled(); err != nil {
		return nil, err
	}
	p := d.pass()
	catalog, its, err := p.catalog()
	if err != nil {
		return nil, err
	}
	objects, err := d.objects()
	if err != nil {
		return nil, err
	}
	file := d.File
	if m := karpenterPath.FindStringSubmatch(file); m != nil {
		file = m[1]
	}
	c := &SuiteCase{Name: name, Reference: fmt.Sprintf("kubernetes-sigs/karpenter v1.15.0 %s: %q", file, d.Spec)}
	c.Disrupt = d.answer(its)
	c.prices = d.replacementPrices(its)
	c.driftedAt = d.driftedAt()
	settings := p.settings()
	// The provider's repair policies matter only to the Repair method (NodeRepair gate on).
	if g, ok := d.Settings["featureGates"].(map[string]any); ok && g["NodeRepair"] == true {
		if rp := repairSettings(d.Settings); len(rp) > 0 {
			settings["repairPolicies"] = rp
		}
	}
	c.Scenario = map[string]any{
		"name":        name,
		"description": "A decision of Karpenter v1.15.0's disruption controller inside its own test suite, replayed at the suite's clock; the expectation is Karpenter's decision (oracle/suite).",
		"reference":   c.Reference,
		"kind":        "disrupt",
		"clock":       map[string]any{"now": d.Now.UTC().Format(time.RFC3339Nano)},
		"catalog":     catalog,
		"settings":    settings,
		"objects":     objects,
		"expect":      disruptExpectation(c.Disrupt),
	}
	return c, nil
}

// checkModelled: what the decision depends on that nodecast does not model, or that no manifest
// can say (Karpenter's in-memory state).
func (d *SuiteDecision) checkModelled() error {
	if g, ok := d.Settings["featureGates"].(map[string]any); ok && g["NodeRepair"] == true || strings.Contains(d.Method, "Repair") {
		if err := d.repairComparable(); err != nil {
			return err
		}
	}
	if strings.Contains(d.Method, "StaticDrift") {
		return exclude("static NodePools", "%s", d.Method)
	}
	for _, np := range d.pools() {
		if np.Spec.Replicas != nil {
			return exclude("static NodePools", "NodePool %s has spec.replicas", np.Name)
		}
	}
	for _, n := range d.Nodes {
		deleting := n.Node != nil && !n.Node.DeletionTimestamp.IsZero() || n.NodeClaim != nil && !n.NodeClaim.DeletionTimestamp.IsZero()
		switch {
		case n.Queued || n.MarkedForDeletion && !deleting:
			return exclude("nodes in the orchestration queue (Karpenter's memory)", "node %s", n.Name)
		case n.Nominated:
			return exclude("nodes nominated for pending pods (Karpenter's memory)", "node %s", n.Name)
		case n.BufferPods > 0:
			// Counted in Karpenter's state only (the suite writes them with
			// cluster.UpdateBufferPodCounts); no CapacityBuffer object says so.
			return exclude("virtual buffer pods counted in Karpenter's memory", "node %s: %d", n.Name, n.BufferPods)
		}
	}
	for _, pod := range d.Pods {
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
				return exclude("volumes (PVC topology, CSI limits)", "pod %s/%s mounts volume %s", pod.Namespace, pod.Name, v.Name)
			}
		}
		if len(pod.Spec.ResourceClaims) > 0 {
			return exclude("DRA resource claims", "pod %s/%s", pod.Namespace, pod.Name)
		}
	}
	if d.Settings["ignoreDraRequests"] == false {
		return exclude("DRA resource claims", "ignoreDraRequests=false")
	}
	if defaultSpreads(d.Settings) {
		return exclude("cluster default topology spreads in a disruption decision (the harness does not convert their Services and owners)", "settings.schedulerConfig")
	}
	pools := map[string]*v1.NodePool{}
	for i := range d.NodePools {
		pools[d.NodePools[i].Name] = &d.NodePools[i]
	}
	for i := range d.NodeClaims {
		nc := &d.NodeClaims[i]
		// The expiration controller is not part of the suite's disruption loop; nodecast's pass
		// answers expiry first (FORMAT §6.1).
		if e := nc.Spec.ExpireAfter.Duration; e != nil && !nc.CreationTimestamp.IsZero() && !nc.CreationTimestamp.Add(*e).After(d.Now) {
			return exclude("expired NodeClaim (the expiration controller is not in the suite's loop)", "NodeClaim %s", nc.Name)
		}
		// Karpenter's methods read the Consolidatable condition, which the suite's specs write
		// themselves; nodecast derives it from consolidateAfter and the claim's times (FORMAT §6.2),
		// as the NodeClaim disruption controller would (nodeclaim/disruption/consolidation.go).
		if want, ok := consolidatableByRule(nc, pools[nc.Labels[v1.NodePoolLabelKey]], d.Now); ok {
			if got := nc.StatusConditions().IsTrue(v1.ConditionTypeConsolidatable); got != want {
				return exclude("test-written Consolidatable condition contradicts consolidateAfter", "NodeClaim %s: condition %v, rule %v", nc.Name, got, want)
			}
		}
	}
	// Last, so that the categories above keep their counts. The spec changed the cluster
	// while a method waited in validation (a pod bound, a node labelled): the dump holds the
	// cluster after the change, the command came from the one before, so the dump is not the
	// decision's input ("Consolidation TTL should not consolidate if the action picks
	// different instance types after the node TTL wait").
	if len(d.ChangedDuringReconcile) > 0 {
		return exclude("the spec changed the cluster during Karpenter's decision (validation wait): the dump is not its input",
			"%d objects, e.g. %s", len(d.ChangedDuringReconcile), d.ChangedDuringReconcile[0])
	}
	return nil
}

// repairComparable: a decision with the NodeRepair gate on compares when the provider's repair
// policies are in the dump (nodecast takes them as settings.repairPolicies, repairSettings) and
// none of them reboots: a RebootNode policy hands the node to the provider's reboot lifecycle,
// which nodecast does not model (it refuses such a policy).
func (d *SuiteDecision) repairComparable() error {
	raw, ok := d.Settings["repairPolicies"]
	if !ok {
		return exclude("NodeRepair: repair policies not in the dump (older dump)", "%s", d.Method)
	}
	// --legacy-node-repair swaps the Repair method for the legacy node.health controller, which
	// nodecast does not model (it refuses settings.legacyNodeRepair with the gate on).
	if d.Settings["legacyNodeRepair"] == true {
		return exclude("NodeRepair: --legacy-node-repair (the legacy node.health controller is not modelled)", "%s", d.Method)
	}
	list, _ := raw.([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok && m["action"] == "RebootNode" {
			return exclude("NodeRepair: a RebootNode repair policy (reboots are not modelled)", "%s=%s", m["conditionType"], m["conditionStatus"])
		}
	}
	return nil
}

// repairSettings: the dumped provider repair policies in nodecast's settings.repairPolicies
// shape (Karpenter's RepairPolicy fields; the dump names the toleration `toleration`).
func repairSettings(settings map[string]any) []map[string]any {
	list, _ := settings["repairPolicies"].([]any)
	var out []map[string]any
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		p := map[string]any{"conditionType": m["conditionType"], "conditionStatus": m["conditionStatus"], "action": m["action"]}
		if re, _ := m["reasonRegex"].(string); re != "" {
			p["reasonRegex"] = re
		}
		if t, ok := m["toleration"]; ok {
			p["tolerationDuration"] = t
		}
		if g, ok := m["terminationGracePeriod"]; ok {
			p["terminationGracePeriod"] = g
		}
		if pr, ok := m["priority"].(float64); ok && pr != 0 {
			p["priority"] = int(pr)
		}
		out = append(out, p)
	}
	return out
}

// consolidatableByRule: what the NodeClaim disruption controller would set (ok false: the rule
// does not apply: no pool, not initialized).
func consolidatableByRule(nc *v1.NodeClaim, np *v1.NodePool, now time.Time) (bool, bool) {
	init := nc.StatusConditions().Get(v1.ConditionTypeInitialized)
	if np == nil || init == nil || !init.IsTrue() {
		return false, false
	}
	after := np.Spec.Disruption.ConsolidateAfter.Duration
	if after == nil {
		return false, true
	}
	t := init.LastTransitionTime.Time
	if !nc.Status.LastPodEventTime.IsZero() {
		t = nc.Status.LastPodEventTime.Time
	}
	return !now.Before(t.Add(*after)), true
}

// objects: the cluster as the API server held it at the decision, as manifests.
func (d *SuiteDecision) objects() (string, error) {
	w := &manifests{}
	add := w.add
	for _, np := range d.pools() {
		add("karpenter.sh/v1", "NodePool", &np.ObjectMeta, &np)
	}
	for i := range d.APINodes {
		n := d.APINodes[i]
		add("v1", "Node", &n.ObjectMeta, &n)
	}
	for i := range d.NodeClaims {
		nc := d.NodeClaims[i]
		add("karpenter.sh/v1", "NodeClaim", &nc.ObjectMeta, &nc)
	}
	for i := range d.DaemonSets {
		ds := d.DaemonSets[i]
		add("apps/v1", "DaemonSet", &ds.ObjectMeta, &ds)
	}
	for i := range d.PDBs {
		pdb := d.PDBs[i]
		add("policy/v1", "PodDisruptionBudget", &pdb.ObjectMeta, &pdb)
	}
	for i := range d.Pods {
		pod := d.Pods[i]
		add("v1", "Pod", &pod.ObjectMeta, &pod)
	}
	return w.text()
}

// answer: Karpenter's decision in the harness's form; a replacement's launch by the rule nodecast
// is held to (catalog.go, launch), as for generated scenarios.
func (d *SuiteDecision) answer(its map[string]cloudprovider.InstanceTypes) *DisruptAnswer {
	a := &DisruptAnswer{Decision: "none", Nodes: []string{}, Method: strings.TrimPrefix(d.Method, "*disruption.")}
	for _, cmd := range d.Commands {
		a.Decision = cmd.Decision
		a.Reason = strings.ToLower(d.Reason)
		a.Nodes = append(a.Nodes, cmd.Candidates...)
		for i, r := range cmd.Replacements {
			if i == 0 && a.Replacement == nil {
				c := Claim{NodePool: r.NodePool, Options: r.Options}
				var opts cloudprovider.InstanceTypes
				for _, it := range its[r.NodePool] {
					if slices.Contains(r.Options, it.Name) {
						opts = append(opts, it)
					}
				}
				c.Launch = launch(opts, scheduling.NewNodeSelectorRequirementsWithMinValues(r.Requirements...), false)
				a.Replacement = &c
			}
			a.Replacements++
		}
	}
	sort.Strings(a.Nodes)
	return a
}

// replacementPrices: each type's price for Karpenter's first replacement as OrderByPrice sees it
// (the cheapest launchable offering compatible with the replacement's requirements), keyed "".
func (d *SuiteDecision) replacementPrices(its map[string]cloudprovider.InstanceTypes) map[string]map[string]float64 {
	for _, cmd := range d.Commands {
		for _, r := range cmd.Replacements {
			return map[string]map[string]float64{"": cheapestOfferings(its[r.NodePool], r.Requirements)}
		}
	}
	return nil
}

// driftedAt: each Node's NodeClaim's Drifted transition time (joined by provider ID, as
// Karpenter's state joins them; the suite's NodeClaims name no node).
func (d *SuiteDecision) driftedAt() map[string]time.Time {
	out := map[string]time.Time{}
	for _, n := range d.APINodes {
		for i := range d.NodeClaims {
			nc := &d.NodeClaims[i]
			if n.Spec.ProviderID == "" || nc.Status.ProviderID != n.Spec.ProviderID {
				continue
			}
			if c := nc.StatusConditions().Get(v1.ConditionTypeDrifted); c != nil && c.IsTrue() {
				out[n.Name] = c.LastTransitionTime.Time
			}
		}
	}
	return out
}

// driftTie: the nodes nodecast and Karpenter drifted differ, and every one of them turned
// Drifted at the same time: drift.go sorts by that time alone (sort.Slice, unstable), so
// Karpenter's pick among them follows its candidates' map order.
func (c *SuiteCase) driftTie(n *DisruptAnswer) bool {
	var at *time.Time
	for _, name := range append(slices.Clone(n.Nodes), c.Disrupt.Nodes...) {
		t, ok := c.driftedAt[name]
		if !ok || at != nil && !t.Equal(*at) {
			return false
		}
		at = &t
	}
	return at != nil
}

// explainDisrupt names a difference whose cause the harness can check, or returns class as is.
//   - Karpenter's suite builds its methods with NewMethodsWithNopValidator (validation_test.go):
//     StaticDrift, Drift, Emptiness, MultiNode, SingleNode; Karpenter's own NewMethods
//     (controller.go) runs Emptiness before the drift methods, as nodecast does. A node both
//     empty and drifted is Drift's in the suite, Emptiness's in production.
//   - The same number of nodes, others chosen, where nodecast disclosed a tie: candidates
//     Karpenter orders by an unstable sort and map order.
//   - Drifted nodes of the same count, all drifted at the same time: see driftTie.
//   - Replacement options of the same count that differ only among types priced exactly as the
//     most expensive kept option: OrderByPrice's sort.Slice by price alone decides which of the
//     equally priced types survive the cut (15 for spot-to-spot, MaxInstanceTypes otherwise).
func (c *SuiteCase) explainDisrupt(class string, n *DisruptAnswer) string {
	k := c.Disrupt
	switch {
	case strings.HasPrefix(class, "reason differs") && n.Reason == "empty" && k.Reason == "drifted":
		return "the suite's method order: Drift before Emptiness (validation_test.go NewMethodsWithNopValidator; Karpenter's NewMethods and nodecast run Emptiness first)"
	case strings.HasPrefix(class, "disrupted nodes differ (same count)") && n.Ties > 0:
		return "candidates tied in Karpenter's order (nodecast discloses the tie)"
	case class == "disrupted nodes differ (same count) [drifted]" && c.driftTie(n):
		return "drift candidates drifted at the same second (drift.go orders by that time alone, sort.Slice)"
	case class == "replacement options differ" && c.replacementPriceTie(n):
		return "replacement options differ only among equal-price types at the option cut (Karpenter's unstable sort.Slice)"
	}
	return class
}

func (c *SuiteCase) replacementPriceTie(n *DisruptAnswer) bool {
	k, prices := c.Disrupt.Replacement, c.prices[""]
	if k == nil || n.Replacement == nil || prices == nil || len(k.Options) != len(n.Replacement.Options) {
		return false
	}
	top := 0.0
	for _, o := range k.Options {
		top = max(top, prices[o])
	}
	for _, o := range append(slices.Clone(n.Replacement.Options), k.Options...) {
		if slices.Contains(n.Replacement.Options, o) != slices.Contains(k.Options, o) && prices[o] != top {
			return false
		}
	}
	return true
}

// disruptExpectation: Karpenter's decision as a FORMAT §6.3 `expect`.
func disruptExpectation(k *DisruptAnswer) map[string]any {
	e := map[string]any{"decision": k.Decision}
	if k.Decision == "none" {
		return e
	}
	e["reason"], e["disruptedNodes"] = k.Reason, k.Nodes
	if r := k.Replacement; r != nil {
		rep := map[string]any{"count": k.Replacements, "instanceTypeOptions": r.Options}
		if r.Launch != nil {
			types := make([]string, 0, len(r.Launch.Types))
			for t := range r.Launch.Types {
				types = append(types, t)
			}
			sort.Strings(types)
			rep["instanceTypes"], rep["capacityType"] = types, r.Launch.CapacityType
		}
		e["replacement"] = rep
	}
	return e
}

package main

// The comparison of one simulation with the controller's timeline (sim_compare.go says what is
// compared and how a difference is classified).

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// simView: a simulation read against its timeline.
type simView struct {
	t *simTimeline
	a *simAnswer
	// The simulation's pod "ns/name" → the real pod, and back.
	real map[string]string
	// Each real pod's first nomination in the simulation.
	firstNom map[string]simEvent
	node     map[string]int // simulated NodeClaim → its index in a.Nodes
	// Simulated NodeClaim → the real one it stands for (paired wave by wave on their pods).
	names map[string]string
}

func newSimView(t *simTimeline, a *simAnswer) *simView {
	v := &simView{t: t, a: a, real: map[string]string{}, firstNom: map[string]simEvent{}, node: map[string]int{}, names: map[string]string{}}
	for p, inst := range t.instances() {
		ns, _, _ := strings.Cut(p, "/")
		v.real[ns+"/"+inst] = p
	}
	for _, e := range a.Timeline {
		if e.Event != "pod-nominated" {
			continue
		}
		if p, ok := v.real[e.Object]; ok {
			if _, seen := v.firstNom[p]; !seen {
				v.firstNom[p] = e
			}
		}
	}
	for i, n := range a.Nodes {
		v.node[n.Name] = i
	}
	v.pairAll()
	return v
}

// pairAll names the simulated NodeClaims after the real ones holding the same pods: the pods
// first nominated to each, at its launch or later (exactly, then as interchangeable replicas).
func (v *simView) pairAll() {
	simPods := map[string][]string{}
	for p, e := range v.firstNom {
		simPods[e.Node] = append(simPods[e.Node], p)
	}
	var sim, ctl []named
	for _, n := range v.a.Nodes {
		if ps := simPods[n.Name]; len(ps) > 0 {
			sort.Strings(ps)
			sim = append(sim, named{n.Name, Claim{Pods: ps}})
		}
	}
	for _, c := range v.t.Claims {
		if len(c.Pods) > 0 {
			ctl = append(ctl, named{c.Name, Claim{Pods: c.Pods}})
		}
	}
	v.pair(sim, ctl)
}

// realName: the real NodeClaim a simulated one stands for, or "sim:<name>" when none does.
func (v *simView) realName(sim string) string {
	if r, ok := v.names[sim]; ok {
		return r
	}
	return "sim:" + sim
}

// waves: the wave numbers and each wave's window [start, end) in timeline seconds (the last
// wave ends at the freeze of the disruption phase).
func (v *simView) waves() ([]int, map[int][2]float64, map[int][]string) {
	start := map[int]float64{}
	pods := map[int][]string{}
	for _, p := range v.t.Pods {
		if s, ok := start[p.Wave]; !ok || p.Created < s {
			start[p.Wave] = p.Created
		}
		pods[p.Wave] = append(pods[p.Wave], p.Name)
	}
	var ws []int
	for w := range start {
		ws = append(ws, w)
	}
	sort.Ints(ws)
	win := map[int][2]float64{}
	for i, w := range ws {
		end := math.Inf(1)
		if i+1 < len(ws) {
			end = start[ws[i+1]]
		} else if len(v.t.Budgets) > 0 {
			end = v.t.Budgets[0].At
		}
		win[w] = [2]float64{start[w], end}
	}
	return ws, win, pods
}

// named pairs a claim with its NodeClaim's name.
type named struct {
	name string
	c    Claim
}

// controllerWave: what the controller did for a wave's pods, in the oracle's form (the rule of
// controllerAnswer: a pod's first nomination, to a NodeClaim launched in the wave or to an
// earlier node).
func (v *simView) controllerWave(pods []string, win [2]float64) *ProvisionAnswer {
	a := &ProvisionAnswer{Claims: []Claim{}, Existing: map[string]string{}, Unschedulable: []string{}}
	launched := map[string]float64{}
	for _, c := range v.t.Claims {
		launched[c.Name] = c.Launched
	}
	byClaim := map[string][]string{}
	recs := map[string]int{}
	for i, p := range v.t.Pods {
		recs[p.Name] = i
	}
	for _, p := range pods {
		r := v.t.Pods[recs[p]]
		// A pod first nominated after the wave's window (after its settle: a later wave's pass,
		// or room the disruption phase made) was unschedulable in the wave, as the run counts it.
		if r.NominatedTo == "" || r.Nominated == nil || *r.Nominated >= win[1] {
			a.Unschedulable = append(a.Unschedulable, p)
			continue
		}
		claim, node := "", ""
		for _, part := range strings.Split(r.NominatedTo, ", ") {
			switch kind, name, _ := strings.Cut(part, "/"); kind {
			case "nodeclaim":
				claim = name
			case "node":
				node = name
			}
		}
		at, ok := launched[claim]
		switch {
		case claim != "" && ok && at >= win[0]:
			byClaim[claim] = append(byClaim[claim], p)
		case node != "":
			a.Existing[p] = node
		default:
			a.Existing[p] = claim
		}
	}
	for _, c := range v.t.Claims {
		if c.Launched < win[0] || c.Launched >= win[1] {
			continue
		}
		if len(byClaim[c.Name]) == 0 {
			a.Replacements++
			continue
		}
		cl := v.t.Launches[c.Name]
		cl.Pods = byClaim[c.Name]
		sort.Strings(cl.Pods)
		a.Claims = append(a.Claims, cl)
	}
	sort.Strings(a.Unschedulable)
	sortClaims(a.Claims)
	return a
}

// simWave: what the simulation did for the same pods in the same window (whole seconds).
func (v *simView) simWave(pods []string, win [2]float64) *ProvisionAnswer {
	a := &ProvisionAnswer{Claims: []Claim{}, Existing: map[string]string{}, Unschedulable: []string{}}
	s, e := sec(win[0]), math.MaxInt
	if !math.IsInf(win[1], 1) {
		e = sec(win[1])
	}
	byNode := map[string][]string{}
	for _, p := range pods {
		ev, ok := v.firstNom[p]
		if !ok || ev.TimeSeconds >= e {
			a.Unschedulable = append(a.Unschedulable, p)
			continue
		}
		if i, ok := v.node[ev.Node]; ok && v.a.Nodes[i].LaunchedSeconds >= s {
			byNode[ev.Node] = append(byNode[ev.Node], p)
		} else {
			a.Existing[p] = v.realName(ev.Node)
		}
	}
	for _, n := range v.a.Nodes {
		if n.LaunchedSeconds < s || n.LaunchedSeconds >= e {
			continue
		}
		if len(byNode[n.Name]) == 0 {
			a.Replacements++
			continue
		}
		c := Claim{NodePool: n.NodePool, InstanceType: n.InstanceType, CapacityType: n.CapacityType, Zone: n.Zone, Pods: byNode[n.Name]}
		sort.Strings(c.Pods)
		a.Claims = append(a.Claims, c)
	}
	sort.Strings(a.Unschedulable)
	sortClaims(a.Claims)
	return a
}

// pair names the simulated NodeClaims after the controller's holding the same pods (exactly,
// then as interchangeable replicas), each real one at most once.
func (v *simView) pair(sim, ctl []named) {
	used := map[int]bool{}
	for _, same := range []func(a, b []string) bool{
		slices.Equal[[]string],
		func(a, b []string) bool { return slices.Equal(canonPods(a), canonPods(b)) },
	} {
		for _, s := range sim {
			if _, done := v.names[s.name]; done {
				continue
			}
			for j, c := range ctl {
				if !used[j] && same(s.c.Pods, c.c.Pods) {
					used[j] = true
					v.names[s.name] = c.name
					break
				}
			}
		}
	}
}

func canonPods(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = canon(p)
	}
	slices.Sort(out)
	return out
}

// withoutOptions: a copy of a with no instance-type options (the simulation reports none).
func withoutOptions(a *ProvisionAnswer) *ProvisionAnswer {
	out := *a
	out.Claims = make([]Claim, len(a.Claims))
	for i, c := range a.Claims {
		c.Options = nil
		out.Claims[i] = c
	}
	return &out
}

// asLaunched: nodecast's own answer as the Karpenter side of a comparison (its launch the only
// one allowed), restricted to pods.
func asLaunched(a *ProvisionAnswer, pods []string) *ProvisionAnswer {
	keep := map[string]bool{}
	for _, p := range pods {
		keep[p] = true
	}
	out := &ProvisionAnswer{Claims: []Claim{}, Existing: map[string]string{}, Unschedulable: []string{}}
	for _, c := range a.Claims {
		var ps []string
		for _, p := range c.Pods {
			if keep[p] {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		c.Pods, c.Options = ps, nil
		c.Launch = &Launch{CapacityType: c.CapacityType, Types: map[string][]string{c.InstanceType: {c.Zone}}}
		out.Claims = append(out.Claims, c)
	}
	for p, n := range a.Existing {
		if keep[p] {
			out.Existing[p] = n
		}
	}
	for _, p := range a.Unschedulable {
		if keep[p] {
			out.Unschedulable = append(out.Unschedulable, p)
		}
	}
	return out
}

// compareSim: every item of one scenario.
func compareSim(t *simTimeline, a *simAnswer, one *oneShot) []simResult {
	v := newSimView(t, a)
	ws, win, pods := v.waves()
	var out []simResult
	for _, w := range ws {
		ca := v.controllerWave(pods[w], win[w])
		sa := v.simWave(pods[w], win[w])
		r := simResult{Name: t.Name, Item: fmt.Sprintf("wave%d", w), Sim: sa, Controller: ca}
		r.Class, r.Detail = CompareProvision(withoutOptions(sa), withoutOptions(ca))
		r.Agree = r.Class == ""
		file := t.Name
		if w > 1 {
			file = fmt.Sprintf("%s-w%d", t.Name, w)
		}
		if !r.Agree && r.Class == "existing-node placements differ" && sameIgnoringNodes(sa, ca) {
			r.Verdict = "tie: the same pods on other existing nodes of equal fit (Karpenter tries existing nodes by name, NodeClaim names end in a random suffix; the simulator's names follow launch order)"
		} else if !r.Agree {
			r.Verdict = "one-shot plan not answered"
			if o := one.plan[file]; o != nil {
				if c, _ := CompareProvision(withoutOptions(sa), asLaunched(o, pods[w])); c == "" {
					r.Verdict = "simulate = one-shot plan (run: " + runVerdict(one, file) + ")"
				} else {
					r.Verdict = "simulate only (vs one-shot plan: " + c + ")"
				}
			}
		}
		out = append(out, r)
	}
	out = append(out, v.consolidation())
	if d := v.disruption(one); d != nil {
		out = append(out, *d)
	}
	return out
}

func runVerdict(one *oneShot, name string) string {
	r, ok := one.verdicts[name]
	switch {
	case !ok:
		return "no result"
	case r.Agree:
		return "agrees"
	case r.Verdict != "":
		return r.Class + "; " + r.Verdict
	default:
		return r.Class
	}
}

// sameIgnoringNodes: the same pods on existing nodes, whichever nodes.
func sameIgnoringNodes(a, b *ProvisionAnswer) bool {
	pods := func(x *ProvisionAnswer) []string {
		var out []string
		for p := range x.Existing {
			out = append(out, canon(p))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(pods(a), pods(b))
}

// stateAt: the pods on each node (by real name) at second `at` of the simulation, as canonical
// pod lists joined, sorted; and the controller's from its phase input (the -d file's bound pods).
func (v *simView) stateAt(at int) []string {
	node := v.podNodes(at + 1)
	by := map[string][]string{}
	for p, n := range node {
		by[v.realName(n)] = append(by[v.realName(n)], canon(p))
	}
	return joinState(by)
}

func joinState(by map[string][]string) []string {
	var out []string
	for n, ps := range by {
		slices.Sort(ps)
		out = append(out, n+"="+strings.Join(ps, ","))
	}
	slices.Sort(out)
	return out
}

func controllerState(file string) ([]string, error) {
	list, err := LoadScenarios(file)
	if err != nil || len(list) != 1 {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	objs, err := list[0].ParseObjects()
	if err != nil {
		return nil, err
	}
	by := map[string][]string{}
	for _, p := range objs.Pods {
		if p.Spec.NodeName != "" {
			by[p.Spec.NodeName] = append(by[p.Spec.NodeName], canon(p.Namespace+"/"+p.Name))
		}
	}
	return joinState(by), nil
}

// consolidation: NodeClaims disrupted before the freeze (consolidation during the waves), by count.
func (v *simView) consolidation() simResult {
	freeze := math.Inf(1)
	if len(v.t.Budgets) > 0 {
		freeze = v.t.Budgets[0].At
	}
	var ctl, sim []string
	for _, c := range v.t.Claims {
		at := c.Disrupted
		if at == nil {
			at = c.Deleted
		}
		if at != nil && *at < freeze {
			ctl = append(ctl, c.Name+" "+strings.ToLower(c.DisruptionReason))
		}
	}
	for _, e := range v.a.Timeline {
		if e.Event == "nodeclaim-disrupted" && (math.IsInf(freeze, 1) || e.TimeSeconds < sec(freeze)) {
			sim = append(sim, v.realName(e.Object)+" "+e.Reason)
		}
	}
	r := simResult{Name: v.t.Name, Item: "consolidation", Sim: sim, Controller: ctl, Agree: len(ctl) == len(sim)}
	if !r.Agree {
		r.Class = fmt.Sprintf("NodeClaims disrupted during the waves differ (simulate %d, controller %d)", len(sim), len(ctl))
		r.Detail = fmt.Sprintf("simulate %v, controller %v", sim, ctl)
		r.Verdict = "simulate only (the one-shot answers see no waves' consolidation)"
	}
	return r
}

// disruption: the simulation's first decision after the budgets opened against the controller's.
func (v *simView) disruption(one *oneShot) *simResult {
	d := v.t.Disrupt
	if d == nil {
		return nil
	}
	r := &simResult{Name: v.t.Name, Item: "disruption"}
	if d.Error != "" || d.Decision == nil {
		r.Class, r.Detail = "harness or timing", d.Error
		return r
	}
	open := sec(v.t.openAt())
	s := &DisruptAnswer{Decision: "none", Nodes: []string{}}
	first := -1
	for _, e := range v.a.Timeline {
		if e.Event != "nodeclaim-disrupted" || e.TimeSeconds < open || (first >= 0 && e.TimeSeconds != first) {
			continue
		}
		first = e.TimeSeconds
		s.Decision, s.Reason = "delete", e.Reason
		s.Nodes = append(s.Nodes, v.realName(e.Object))
	}
	if first >= 0 {
		nominated := map[string]bool{}
		for _, e := range v.a.Timeline {
			if e.Event == "pod-nominated" && e.TimeSeconds == first {
				nominated[e.Node] = true
			}
		}
		for _, n := range v.a.Nodes {
			if n.LaunchedSeconds == first && !nominated[n.Name] {
				s.Decision = "replace"
				s.Replacements++
				if s.Replacement == nil {
					s.Replacement = &Claim{NodePool: n.NodePool, InstanceType: n.InstanceType, CapacityType: n.CapacityType, Zone: n.Zone}
				}
			}
		}
	}
	sort.Strings(s.Nodes)
	k := d.Decision
	if s.Replacement != nil && k.Replacement != nil {
		// The simulation reports no instance-type options: its launch is checked against the
		// controller's launch set only.
		s.Replacement.Options = k.Replacement.Options
	}
	r.Sim, r.Controller = s, k
	r.Class, r.Detail = CompareDisrupt(s, k)
	if first >= 0 {
		r.Detail = strings.TrimSpace(fmt.Sprintf("%s (simulate decided %d s after the budgets opened, the controller %.0f s)", r.Detail, first-open, d.DecideSeconds))
	}
	r.Agree = r.Class == ""
	if r.Agree {
		return r
	}
	if one.dir != "" {
		if ctl, err := controllerState(filepath.Join(one.dir, v.t.Name+"-d.yaml")); err == nil {
			if sim := v.stateAt(open); !slices.Equal(sim, ctl) {
				r.Verdict = "the cluster differs at the open: " + stateDiff(sim, ctl)
				return r
			}
		}
	}
	if d := v.launchDiffs(); d != "" {
		r.Verdict = "the nodes differ at the open: the fake provider's launch (its own pick) against the simulation's (in the AWS launch set): " + d
		return r
	}
	o := one.disrupt[v.t.Name+"-d"]
	if o == nil {
		r.Verdict = "one-shot consolidate not answered"
		return r
	}
	oo := *o
	if oo.Replacement != nil {
		c := *oo.Replacement
		c.Launch = &Launch{CapacityType: c.CapacityType, Types: map[string][]string{c.InstanceType: {c.Zone}}}
		if s.Replacement != nil {
			c.Options = s.Replacement.Options
		}
		oo.Replacement = &c
	}
	c, _ := CompareDisrupt(s, &oo)
	switch {
	case c == "":
		r.Verdict = "simulate = one-shot consolidate (run: " + runVerdict(one, v.t.Name+"-d") + ")"
	case strings.HasPrefix(r.Class, "disrupted nodes differ (same count)") && o.Ties > 0:
		r.Verdict = fmt.Sprintf("tie (nodecast discloses %d ties on the phase's input)", o.Ties)
	default:
		r.Verdict = "simulate only (vs one-shot consolidate: " + c + ")"
	}
	return r
}

// stateDiff: the nodes' pod lists on one side only.
func stateDiff(sim, ctl []string) string {
	var only []string
	for _, x := range sim {
		if !slices.Contains(ctl, x) {
			only = append(only, "simulate "+x)
		}
	}
	for _, x := range ctl {
		if !slices.Contains(sim, x) {
			only = append(only, "controller "+x)
		}
	}
	return strings.Join(only, "; ")
}

// deletionRemap: the disruption phase deletes pods by name, but which replica of a workload
// runs where is not a decision (the oracle compares replicas as interchangeable), so the
// simulation may hold another replica of the same workload on the node a deleted pod ran on.
// For each deleted pod on a real node, the replica of the same workload (canonical name) the
// simulation holds on the simulated node standing for it at the deletion, when it differs:
// deleting that one instead leaves each node as the controller's. Pods without such a
// counterpart keep their own name.
func (v *simView) deletionRemap() map[string]string {
	first := math.MaxInt
	for _, p := range v.t.Pods {
		if p.Deleted != nil {
			first = min(first, sec(*p.Deleted))
		}
	}
	if first == math.MaxInt {
		return nil
	}
	// The simulation's pods per real node name just before the deletions.
	simOn := map[string][]string{}
	for _, entry := range v.stateBefore(first) {
		simOn[entry[1]] = append(simOn[entry[1]], entry[0])
	}
	for _, ps := range simOn {
		slices.Sort(ps)
	}
	used := map[string]bool{}
	out := map[string]string{}
	for _, p := range v.t.Pods {
		if p.Deleted == nil {
			continue
		}
		node := ""
		for _, part := range strings.Split(p.NominatedTo, ", ") {
			if _, name, ok := strings.Cut(part, "/"); ok {
				node = name
			}
		}
		for _, q := range simOn[node] {
			if !used[q] && canon(q) == canon(p.Name) {
				used[q] = true
				if q != p.Name {
					out[p.Name] = q
				}
				break
			}
		}
	}
	return out
}

// podNodes: the simulated node each pod is on before second `before`, from the simulation's
// timeline (nominated or bound there, not deleted, evicted or finished since).
func (v *simView) podNodes(before int) map[string]string {
	node := map[string]string{}
	for _, e := range v.a.Timeline {
		if e.TimeSeconds >= before {
			break
		}
		p, ok := v.real[e.Object]
		if !ok {
			continue
		}
		switch e.Event {
		case "pod-nominated", "pod-bound":
			node[p] = e.Node
		case "pod-deleted", "pod-evicted", "pod-finished":
			delete(node, p)
		}
	}
	return node
}

// stateBefore: [pod, real node name] for each pod the simulation holds on a node before second at.
func (v *simView) stateBefore(at int) [][2]string {
	node := v.podNodes(at)
	var out [][2]string
	for p, n := range node {
		out = append(out, [2]string{p, v.realName(n)})
	}
	return out
}

// withDeletions: a copy of t whose deletions follow remap (each deleted pod's time moved to its
// counterpart).
func (t *simTimeline) withDeletions(remap map[string]string) *simTimeline {
	c := *t
	c.Pods = slices.Clone(t.Pods)
	idx := map[string]int{}
	for i, p := range c.Pods {
		idx[p.Name] = i
	}
	deleted := map[string]*float64{}
	for _, p := range t.Pods {
		if p.Deleted != nil {
			to := p.Name
			if q, ok := remap[p.Name]; ok {
				to = q
			}
			deleted[to] = p.Deleted
		}
	}
	for i := range c.Pods {
		c.Pods[i].Deleted = deleted[c.Pods[i].Name]
	}
	return &c
}

// launchDiffs: paired NodeClaims whose launched offering differs. The fake provider launches by
// its own rule (often on-demand where the AWS provider launches spot); a wave's comparison accepts
// nodecast's launch when it is in the AWS launch set, but consolidation then prices other nodes.
func (v *simView) launchDiffs() string {
	real := map[string]controllerClaim{}
	for _, c := range v.t.Claims {
		real[c.Name] = controllerClaim{c.InstanceType, c.CapacityType, c.Zone}
	}
	var out []string
	for _, n := range v.a.Nodes {
		r, ok := v.names[n.Name]
		if !ok {
			continue
		}
		if c := real[r]; c != (controllerClaim{n.InstanceType, n.CapacityType, n.Zone}) {
			out = append(out, fmt.Sprintf("%s %s %s %s, simulated %s %s %s", r, c.it, c.ct, c.zone, n.InstanceType, n.CapacityType, n.Zone))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

type controllerClaim struct{ it, ct, zone string }

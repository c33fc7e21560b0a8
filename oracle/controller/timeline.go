package controller

// The scenario's timeline (issue 36, part 3: `nodecast simulate` over the controller's timings):
// what the harness and Karpenter did, in seconds since the scenario's first pod was created, so
// that the scenario can be replayed from its start by nodecast's simulator and the outcomes
// compared. Recording only observes (times of calls the harness makes anyway, of events Karpenter
// publishes, of states the 200 ms tick reads): nothing Karpenter sees changes.

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Timeline of one scenario. Every time is in seconds since Start.
type Timeline struct {
	Start   time.Time      `json:"start"`
	Pods    []PodRecord    `json:"pods"`
	Claims  []ClaimRecord  `json:"nodeClaims"`
	Budgets []BudgetRecord `json:"budgets"`
}

// PodRecord: a pod the harness created (pending, as one wave), when, and what became of it.
type PodRecord struct {
	Name string `json:"name"` // namespace/name
	// Wave: 1 for the scenario's first createPods call, 2 for the second wave.
	Wave    int      `json:"wave"`
	Created float64  `json:"created"`
	Deleted *float64 `json:"deleted,omitempty"`
	// Karpenter's first nomination of the pod ("nodeclaim/X", "node/Y" or both) and when.
	Nominated   *float64 `json:"nominated,omitempty"`
	NominatedTo string   `json:"nominatedTo,omitempty"`
	// The pod as the API server stored it (metadata the simulator reads, and the spec).
	Manifest json.RawMessage `json:"manifest"`
}

// ClaimRecord: a NodeClaim Karpenter launched and its lifecycle as the harness saw it (the
// registered/initialized/deleted times within the 200 ms tick).
type ClaimRecord struct {
	Name         string   `json:"name"`
	NodePool     string   `json:"nodePool"`
	Options      []string `json:"options"`
	InstanceType string   `json:"instanceType"`
	Zone         string   `json:"zone"`
	CapacityType string   `json:"capacityType"`
	Launched     float64  `json:"launched"`
	Registered   *float64 `json:"registered,omitempty"`
	Initialized  *float64 `json:"initialized,omitempty"`
	// When the harness first saw the karpenter.sh/disrupted taint on its Node, and the NodeClaim
	// being deleted (with its DisruptionReason condition's reason, "" when none).
	Disrupted        *float64 `json:"disrupted,omitempty"`
	Deleted          *float64 `json:"deleted,omitempty"`
	DisruptionReason string   `json:"disruptionReason,omitempty"`
	// Pods first nominated to it.
	Pods []string `json:"pods"`
}

// BudgetRecord: the harness wrote this disruption block into every NodePool.
type BudgetRecord struct {
	At         float64         `json:"at"`
	Disruption json.RawMessage `json:"disruption"`
}

// timeline is the harness's recording state (under Harness.mu).
type timeline struct {
	start   time.Time
	wave    int
	pods    map[string]*PodRecord
	order   []string
	claims  map[string]*ClaimRecord
	budgets []BudgetRecord
}

func newTimeline() *timeline {
	return &timeline{pods: map[string]*PodRecord{}, claims: map[string]*ClaimRecord{}}
}

func (t *timeline) since(at time.Time) float64 {
	return at.Sub(t.start).Seconds()
}

func ptr(f float64) *float64 { return &f }

// BeginWave starts a wave of pods (createPods calls it once per call).
func (h *Harness) BeginWave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tl.wave++
}

// NotePodCreated records a pod the harness just created; the first one starts the timeline.
func (h *Harness) NotePodCreated(p *corev1.Pod) {
	meta := map[string]any{"name": p.Name, "namespace": p.Namespace}
	if len(p.Labels) > 0 {
		meta["labels"] = p.Labels
	}
	if len(p.Annotations) > 0 {
		meta["annotations"] = p.Annotations
	}
	if len(p.OwnerReferences) > 0 {
		meta["ownerReferences"] = p.OwnerReferences
	}
	manifest, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": p.Spec})
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tl.start.IsZero() {
		h.tl.start = now
	}
	key := p.Namespace + "/" + p.Name
	if _, ok := h.tl.pods[key]; !ok {
		h.tl.order = append(h.tl.order, key)
	}
	h.tl.pods[key] = &PodRecord{Name: key, Wave: max(h.tl.wave, 1), Created: h.tl.since(now), Manifest: manifest}
}

// NotePodDeleted records the harness deleting a pod (the disruption phase's drawn pods).
func (h *Harness) NotePodDeleted(key string) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.tl.pods[key]; p != nil && p.Deleted == nil {
		p.Deleted = ptr(h.tl.since(now))
	}
}

// NoteBudgets records the harness writing disruption block d into every NodePool.
func (h *Harness) NoteBudgets(d v1.Disruption) {
	b, _ := json.Marshal(d)
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tl.start.IsZero() {
		return
	}
	h.tl.budgets = append(h.tl.budgets, BudgetRecord{At: h.tl.since(now), Disruption: b})
}

// noteNomination: Karpenter's first nomination of a pod (observe, under h.mu).
func (h *Harness) noteNomination(key, target string, at time.Time) {
	if p := h.tl.pods[key]; p != nil && p.Nominated == nil && !h.tl.start.IsZero() {
		p.Nominated, p.NominatedTo = ptr(h.tl.since(at)), target
	}
}

// noteClaims: the lifecycle of the NodeClaims as the tick lists them (registered, initialized,
// being deleted and why) and the disrupted taints of their Nodes.
func (h *Harness) noteClaims(claims []v1.NodeClaim, nodes []corev1.Node) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tl.start.IsZero() {
		return
	}
	at := h.tl.since(now)
	for i := range claims {
		nc := &claims[i]
		r := h.tl.claims[nc.Name]
		if r == nil {
			r = &ClaimRecord{Name: nc.Name}
			h.tl.claims[nc.Name] = r
		}
		if r.Registered == nil && nc.StatusConditions().Get(v1.ConditionTypeRegistered).IsTrue() {
			r.Registered = ptr(at)
		}
		if r.Initialized == nil && nc.StatusConditions().Get(v1.ConditionTypeInitialized).IsTrue() {
			r.Initialized = ptr(at)
		}
		if r.Deleted == nil && nc.DeletionTimestamp != nil {
			r.Deleted = ptr(at)
		}
		if c := nc.StatusConditions().Get(v1.ConditionTypeDisruptionReason); c != nil && c.IsTrue() && r.DisruptionReason == "" {
			r.DisruptionReason = c.Reason
		}
	}
	for i := range nodes {
		n := &nodes[i]
		for _, t := range n.Spec.Taints {
			if t.Key == v1.DisruptedTaintKey {
				if r := h.tl.claims[n.Name]; r != nil && r.Disrupted == nil {
					r.Disrupted = ptr(at)
				}
			}
		}
	}
}

// Timeline returns what was recorded since the last Reset: the pods in creation order, the
// NodeClaims in launch order (those the tick saw but the provider never launched are left out).
func (h *Harness) Timeline() Timeline {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := Timeline{Start: h.tl.start, Pods: []PodRecord{}, Claims: []ClaimRecord{}, Budgets: append([]BudgetRecord{}, h.tl.budgets...)}
	for _, k := range h.tl.order {
		out.Pods = append(out.Pods, *h.tl.pods[k])
	}
	byClaim := map[string][]string{}
	for p, target := range h.first {
		for _, part := range splitTarget(target) {
			if part[0] == "nodeclaim" {
				byClaim[part[1]] = append(byClaim[part[1]], p)
			}
		}
	}
	for _, l := range h.launches {
		nc := l.NodeClaim
		r := ClaimRecord{Name: nc.Name}
		if seen := h.tl.claims[nc.Name]; seen != nil {
			r = *seen
		}
		r.NodePool = nc.Labels[v1.NodePoolLabelKey]
		r.Options = []string{}
		for _, req := range nc.Spec.Requirements {
			if req.Key == corev1.LabelInstanceTypeStable {
				r.Options = append(r.Options, req.Values...)
			}
		}
		sort.Strings(r.Options)
		r.InstanceType = l.Created.Labels[corev1.LabelInstanceTypeStable]
		r.Zone = l.Created.Labels[corev1.LabelTopologyZone]
		r.CapacityType = l.Created.Labels[v1.CapacityTypeLabelKey]
		if !h.tl.start.IsZero() {
			r.Launched = h.tl.since(l.At)
		}
		r.Pods = append([]string{}, byClaim[nc.Name]...)
		sort.Strings(r.Pods)
		out.Claims = append(out.Claims, r)
	}
	return out
}

// splitTarget: "nodeclaim/X, node/Y" as [kind, name] pairs.
func splitTarget(target string) [][2]string {
	var out [][2]string
	for _, part := range strings.Split(target, ", ") {
		if kind, name, ok := strings.Cut(part, "/"); ok {
			out = append(out, [2]string{kind, name})
		}
	}
	return out
}

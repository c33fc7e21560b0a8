package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func disruptNodePool(name string, replicas *int64, deleting bool) v1.NodePool {
	np := v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Replicas = replicas
	if deleting {
		np.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	return np
}

// A static NodePool the suite leaves behind being deleted, with no node, is dropped; one with a
// NodeClaim, or one not being deleted, stays (and a static one then excludes the decision).
func TestSuiteDecisionLeftoverNodePools(t *testing.T) {
	one := int64(1)
	d := &SuiteDecision{NodePools: []v1.NodePool{disruptNodePool("leftover", &one, true), disruptNodePool("default", nil, false)}}
	if got := d.pools(); len(got) != 1 || got[0].Name != "default" {
		t.Fatalf("pools() = %v, want [default]", got)
	}
	if err := d.checkModelled(); err != nil {
		t.Fatalf("a leftover static NodePool excluded the decision: %v", err)
	}
	nc := v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nc", Labels: map[string]string{v1.NodePoolLabelKey: "leftover"}}}
	d.NodeClaims = []v1.NodeClaim{nc}
	if got := d.pools(); len(got) != 2 {
		t.Fatalf("pools() = %v, want both (leftover has a NodeClaim)", got)
	}
	if err, ok := d.checkModelled().(*Excluded); !ok || err.Category != "static NodePools" {
		t.Fatalf("checkModelled() = %v, want static NodePools", err)
	}
}

// The Consolidatable condition a spec writes is compared with consolidateAfter's rule.
func TestConsolidatableByRule(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	np := disruptNodePool("default", nil, false)
	after := 5 * time.Minute
	np.Spec.Disruption.ConsolidateAfter = v1.NillableDuration{Duration: &after}
	nc := &v1.NodeClaim{}
	if _, ok := consolidatableByRule(nc, &np, now); ok {
		t.Fatal("an uninitialized NodeClaim has no rule")
	}
	nc.StatusConditions().SetTrue(v1.ConditionTypeInitialized)
	for i := range nc.Status.Conditions {
		nc.Status.Conditions[i].LastTransitionTime = metav1.Time{Time: now.Add(-10 * time.Minute)}
	}
	if got, ok := consolidatableByRule(nc, &np, now); !ok || !got {
		t.Fatalf("initialized 10m ago, consolidateAfter 5m: got %v %v, want true", got, ok)
	}
	nc.Status.LastPodEventTime = metav1.Time{Time: now.Add(-time.Minute)}
	if got, _ := consolidatableByRule(nc, &np, now); got {
		t.Fatal("a pod event 1m ago with consolidateAfter 5m: want not consolidatable")
	}
	np.Spec.Disruption.ConsolidateAfter = v1.NillableDuration{}
	if got, ok := consolidatableByRule(nc, &np, now); !ok || got {
		t.Fatalf("consolidateAfter Never: got %v %v, want false", got, ok)
	}
}

// A node that Karpenter's state counts virtual buffer pods on excludes the decision: no object in
// the scenario could say so.
func TestSuiteDecisionBufferPodsExcluded(t *testing.T) {
	d := &SuiteDecision{NodePools: []v1.NodePool{disruptNodePool("default", nil, false)}, Nodes: []suiteStateNodeD{{Name: "n", BufferPods: 2}}}
	if err, ok := d.checkModelled().(*Excluded); !ok || err.Category != "virtual buffer pods counted in Karpenter's memory" {
		t.Fatalf("checkModelled() = %v", err)
	}
	d.Nodes[0].BufferPods = 0
	if err := d.checkModelled(); err != nil {
		t.Fatalf("checkModelled() = %v, want comparable", err)
	}
}

// With the NodeRepair gate on, a decision compares when the provider's policies are in the dump
// and none reboots; they reach nodecast as settings.repairPolicies, in its field names.
func TestSuiteDecisionRepairComparable(t *testing.T) {
	d := &SuiteDecision{NodePools: []v1.NodePool{disruptNodePool("default", nil, false)},
		Settings: map[string]any{"featureGates": map[string]any{"NodeRepair": true}}}
	if err, ok := d.checkModelled().(*Excluded); !ok || !strings.Contains(err.Category, "not in the dump") {
		t.Fatalf("no dumped policies: checkModelled() = %v", err)
	}
	fake := map[string]any{"conditionType": "BadNode", "conditionStatus": "False", "reasonRegex": "", "toleration": "30m0s",
		"terminationGracePeriod": "0s", "priority": float64(0), "action": "ReplaceNode"}
	d.Settings["repairPolicies"] = []any{fake, map[string]any{"conditionType": "HighPriority", "conditionStatus": "False",
		"reasonRegex": "x", "toleration": "10m0s", "priority": float64(90), "action": "ReplaceNode"}}
	if err := d.checkModelled(); err != nil {
		t.Fatalf("replace policies: checkModelled() = %v, want comparable", err)
	}
	got := repairSettings(d.Settings)
	want := []map[string]any{
		{"conditionType": "BadNode", "conditionStatus": "False", "tolerationDuration": "30m0s", "terminationGracePeriod": "0s", "action": "ReplaceNode"},
		{"conditionType": "HighPriority", "conditionStatus": "False", "reasonRegex": "x", "tolerationDuration": "10m0s", "priority": 90, "action": "ReplaceNode"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("repairSettings = %v, want %v", got, want)
	}
	d.Settings["repairPolicies"] = []any{fake, map[string]any{"conditionType": "Diagnostic", "conditionStatus": "False", "reasonRegex": "x", "action": "RebootNode"}}
	if err, ok := d.checkModelled().(*Excluded); !ok || !strings.Contains(err.Category, "RebootNode") {
		t.Fatalf("reboot policy: checkModelled() = %v", err)
	}
	d.Settings["repairPolicies"] = []any{fake}
	d.Settings["legacyNodeRepair"] = true
	if err, ok := d.checkModelled().(*Excluded); !ok || !strings.Contains(err.Category, "--legacy-node-repair") {
		t.Fatalf("--legacy-node-repair: checkModelled() = %v", err)
	}
}

// Differences whose cause the harness checks are named; others keep their class.
func TestExplainDisrupt(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	c := &SuiteCase{Disrupt: &DisruptAnswer{Decision: "delete", Reason: "drifted", Nodes: []string{"a"}},
		driftedAt: map[string]time.Time{"a": at, "b": at, "c": at.Add(time.Second)}}
	if got := c.explainDisrupt("reason differs (nodecast empty, karpenter drifted)", &DisruptAnswer{Reason: "empty"}); !strings.Contains(got, "method order") {
		t.Fatalf("empty vs drifted: %q", got)
	}
	cls := "disrupted nodes differ (same count) [drifted]"
	if got := c.explainDisrupt(cls, &DisruptAnswer{Reason: "drifted", Nodes: []string{"b"}}); !strings.Contains(got, "same second") {
		t.Fatalf("drifted at the same time: %q", got)
	}
	if got := c.explainDisrupt(cls, &DisruptAnswer{Reason: "drifted", Nodes: []string{"c"}}); got != cls {
		t.Fatalf("drifted a second later is no tie: %q", got)
	}
	c.Disrupt.Replacement = &Claim{Options: []string{"x", "y"}}
	c.prices = map[string]map[string]float64{"": {"x": 1, "y": 2, "z": 2, "w": 3}}
	if got := c.explainDisrupt("replacement options differ", &DisruptAnswer{Replacement: &Claim{Options: []string{"x", "z"}}}); !strings.Contains(got, "equal-price") {
		t.Fatalf("z costs what y costs: %q", got)
	}
	if got := c.explainDisrupt("replacement options differ", &DisruptAnswer{Replacement: &Claim{Options: []string{"x", "w"}}}); got != "replacement options differ" {
		t.Fatalf("w costs more: %q", got)
	}
}

// Two fake instance types of one name cannot be a catalog; default spreads from
// --scheduler-config in a dump without Services and owners cannot be converted: both exclude.
func TestSuitePassFormatLimits(t *testing.T) {
	it := suiteInstanceType{Name: "example"}
	p := &SuitePass{InstanceTypes: map[string][]suiteInstanceType{"default": {it, it}}}
	if _, _, err := p.catalog(); err == nil || !strings.Contains(err.Error(), "same name") {
		t.Fatalf("catalog() = %v", err)
	}
	p = &SuitePass{Settings: map[string]any{"schedulerConfig": map[string]any{"podTopologySpread": map[string]any{"defaultConstraints": []any{map[string]any{"maxSkew": 1.0}}}}}}
	if err, ok := p.checkModelled().(*Excluded); !ok || !strings.Contains(err.Category, "older dump") {
		t.Fatalf("checkModelled() = %v", err)
	}
}

// A decision during which the spec changed the cluster (the dump lists what changed since
// Reconcile's methods began) is excluded: the dump is not the decision's input. A dump without
// the list (older) or with an empty one is compared.
func TestSuiteDecisionChangedDuringReconcile(t *testing.T) {
	d := &SuiteDecision{NodePools: []v1.NodePool{disruptNodePool("default", nil, false)}}
	for _, changed := range [][]string{nil, {}} {
		d.ChangedDuringReconcile = changed
		if err := d.checkModelled(); err != nil {
			t.Fatalf("changed %v: checkModelled() = %v, want comparable", changed, err)
		}
	}
	d.ChangedDuringReconcile = []string{"Pod default/second added"}
	if err, ok := d.checkModelled().(*Excluded); !ok || !strings.Contains(err.Category, "validation wait") || !strings.Contains(err.Detail, "Pod default/second added") {
		t.Fatalf("checkModelled() = %v", err)
	}
}

// Two Karpenter decisions are the same when decision, reason, nodes (in any order), replacement
// count, pool and options are.
func TestSameDecision(t *testing.T) {
	a := &DisruptAnswer{Decision: "replace", Reason: "underutilized", Nodes: []string{"b", "a"}, Replacements: 1,
		Replacement: &Claim{NodePool: "p", Options: []string{"x", "y"}}, Method: "SingleNodeConsolidation"}
	b := &DisruptAnswer{Decision: "replace", Reason: "underutilized", Nodes: []string{"a", "b"}, Replacements: 1,
		Replacement: &Claim{NodePool: "p", Options: []string{"x", "y"}}}
	if !sameDecision(a, b) {
		t.Errorf("equal decisions differ")
	}
	b.Replacement.Options = []string{"x", "z"}
	if sameDecision(a, b) {
		t.Errorf("other options agree")
	}
	c := &DisruptAnswer{Decision: "delete", Reason: "empty", Nodes: []string{"a"}}
	if sameDecision(a, c) || !sameDecision(c, &DisruptAnswer{Decision: "delete", Reason: "empty", Nodes: []string{"a"}}) {
		t.Errorf("delete decisions compared wrongly")
	}
}

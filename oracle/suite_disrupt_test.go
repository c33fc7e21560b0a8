package main

import (
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

package main

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestNeverIsKeptThroughDefaults(t *testing.T) {
	s := &Scenario{Objects: "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  disruption: {consolidateAfter: Never}\n  template: {spec: {expireAfter: Never}}\n---\nkind: NodePool\nmetadata: {name: b}\nspec: {template: {spec: {}}}\n"}
	o, err := s.ParseObjects()
	if err != nil {
		t.Fatal(err)
	}
	for _, np := range o.NodePools {
		defaults(np)
	}
	if o.NodePools[0].Spec.Disruption.ConsolidateAfter.Duration != nil || o.NodePools[0].Spec.Template.Spec.ExpireAfter.Duration != nil {
		t.Fatalf("Never was defaulted: %+v", o.NodePools[0].Spec)
	}
	if d := o.NodePools[1].Spec.Disruption.ConsolidateAfter.Duration; d == nil || *d != 0 {
		t.Fatalf("absent consolidateAfter should default to 0s, got %v", d)
	}
}

func TestCompareProvisionClassifies(t *testing.T) {
	k := &ProvisionAnswer{Claims: []Claim{{Pods: []string{"d/a", "d/b"}, NodePool: "p", Options: []string{"x", "y"},
		Launch: &Launch{CapacityType: "on-demand", Cheapest: 1, Types: map[string][]string{"x": {"z1", "z2"}}}}}, Existing: map[string]string{}}
	n := &ProvisionAnswer{Claims: []Claim{{Pods: []string{"d/a", "d/b"}, NodePool: "p", Options: []string{"x", "y"}, InstanceType: "x", CapacityType: "on-demand", Zone: "z2", Price: 1}}}
	if c, d := CompareProvision(n, k); c != "" {
		t.Fatalf("expected agreement, got %s: %s", c, d)
	}
	n.Claims[0].Zone = "z3"
	if c, _ := CompareProvision(n, k); c != "launched offering differs" {
		t.Fatalf("got %q", c)
	}
	n.Claims[0].Pods = []string{"d/a"}
	if c, _ := CompareProvision(n, k); c == "" {
		t.Fatal("different pod groups must disagree")
	}
}

func TestInterchangeableReplicasPairByLaunch(t *testing.T) {
	launch := func(ct string) *Launch {
		return &Launch{CapacityType: ct, Types: map[string][]string{"x": {"z1"}}}
	}
	k := &ProvisionAnswer{Claims: []Claim{
		{Pods: []string{"d/app-1-0"}, NodePool: "p", Options: []string{"x"}, Launch: launch("spot")},
		{Pods: []string{"d/app-1-1"}, NodePool: "p", Options: []string{"x"}, Launch: launch("on-demand")},
	}}
	n := &ProvisionAnswer{Claims: []Claim{
		{Pods: []string{"d/app-1-0"}, NodePool: "p", Options: []string{"x"}, InstanceType: "x", CapacityType: "on-demand", Zone: "z1"},
		{Pods: []string{"d/app-1-1"}, NodePool: "p", Options: []string{"x"}, InstanceType: "x", CapacityType: "spot", Zone: "z1"},
	}}
	if c, d := CompareProvision(n, k); c != "" {
		t.Fatalf("replicas are interchangeable, expected agreement, got %s: %s", c, d)
	}
	n.Claims[1].CapacityType = "on-demand"
	if c, _ := CompareProvision(n, k); c != "launched offering differs" {
		t.Fatalf("two on-demand against one spot + one on-demand: got %q", c)
	}
}

func TestPDBStatus(t *testing.T) {
	pods := []*corev1.Pod{}
	for i := 0; i < 3; i++ {
		pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	}
	min := intstr.FromInt(2)
	pdb := &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &min, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
	if st := pdbStatus(pdb, pods, false); st.DisruptionsAllowed != 1 {
		t.Fatalf("minAvailable 2 of 3 healthy: want 1, got %d", st.DisruptionsAllowed)
	}
	pct := intstr.FromString("50%")
	pdb.Spec = policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &pct, Selector: pdb.Spec.Selector}
	if st := pdbStatus(pdb, pods, false); st.DisruptionsAllowed != 2 {
		t.Fatalf("maxUnavailable 50%% of 3, rounded up: want 2, got %d", st.DisruptionsAllowed)
	}
}

func TestSeedSamples(t *testing.T) {
	var s seedSamples
	if err := s.Set("reserved=1-3,7"); err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s[0].kind != "reserved" || fmt.Sprint(s[0].seeds) != "[1 2 3 7]" {
		t.Fatalf("got %+v", s)
	}
	for _, bad := range []string{"reserved", "nope=1", "gates=x", "gates=5-2", "drift=1-200000"} {
		if err := s.Set(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

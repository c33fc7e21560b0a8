package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodecast/nodecast/oracle/controller"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
)

func claimAllowing(types []string, cts ...string) *v1.NodeClaim {
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "general-abc", Labels: map[string]string{v1.NodePoolLabelKey: "general"}},
		Spec: v1.NodeClaimSpec{Requirements: []v1.NodeSelectorRequirementWithMinValues{
			{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: types},
			{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: cts},
		}},
	}
}

func withCapacity(it *cloudprovider.InstanceType, cpu string) *cloudprovider.InstanceType {
	it.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	it.Overhead = &cloudprovider.InstanceTypeOverhead{}
	return it
}

// The harness's launch takes the offering the AWS provider would: spot where the NodeClaim allows
// it (the cheapest spot offering: type and zone), the cheapest on-demand one otherwise; Karpenter's
// fake provider alone launched on-demand where spot was allowed.
func TestAWSLaunchPick(t *testing.T) {
	its := []*cloudprovider.InstanceType{
		withCapacity(plainType("m5.large", offering("on-demand", "us-east-1a", 0.096), offering("on-demand", "us-east-1b", 0.096),
			offering("spot", "us-east-1a", 0.040), offering("spot", "us-east-1b", 0.031)), "2"),
		withCapacity(plainType("c5.large", offering("on-demand", "us-east-1b", 0.085), offering("on-demand", "us-east-1a", 0.085),
			offering("spot", "us-east-1a", 0.035)), "2"),
		withCapacity(plainType("m5.xlarge", offering("on-demand", "us-east-1a", 0.192), offering("spot", "us-east-1a", 0.020)), "4"),
	}
	pick := awsLaunchPick(true)
	ctx := context.Background()
	launchWith := func(nc *v1.NodeClaim, its []*cloudprovider.InstanceType) *v1.NodeClaim {
		cp := fake.NewCloudProvider()
		cp.InstanceTypes = its
		created, err := cp.Create(ctx, nc)
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	label := func(nc *v1.NodeClaim) [3]string {
		return [3]string{nc.Labels[corev1.LabelInstanceTypeStable], nc.Labels[corev1.LabelTopologyZone], nc.Labels[v1.CapacityTypeLabelKey]}
	}
	// c5.large with one CPU and the cheapest spot price of all, for the fit case.
	small := append([]*cloudprovider.InstanceType{withCapacity(plainType("c5.large", offering("on-demand", "us-east-1a", 0.085),
		offering("spot", "us-east-1a", 0.010)), "1")}, its[0], its[2])
	cases := []struct {
		name string
		its  []*cloudprovider.InstanceType
		nc   *v1.NodeClaim
		want [3]string
	}{
		// Spot allowed: the cheapest spot offering among the options (m5.xlarge is not an option).
		{"spot and on-demand", its, claimAllowing([]string{"m5.large", "c5.large"}, "spot", "on-demand"), [3]string{"m5.large", "us-east-1b", "spot"}},
		// On-demand only: the lowest price, equal zones by name.
		{"on-demand", its, claimAllowing([]string{"m5.large", "c5.large"}, "on-demand"), [3]string{"c5.large", "us-east-1a", "on-demand"}},
		// A type too small for the NodeClaim's requests is not launched, however cheap.
		{"fits", small, func() *v1.NodeClaim {
			nc := claimAllowing([]string{"m5.large", "c5.large"}, "spot", "on-demand")
			nc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")}
			return nc
		}(), [3]string{"m5.large", "us-east-1b", "spot"}},
	}
	for _, c := range cases {
		it, zone, ct, ok := pick(c.nc, c.its)
		if !ok || [3]string{it, zone, ct} != c.want {
			t.Errorf("%s: pick %s %s %s (ok %v), want %v", c.name, it, zone, ct, ok, c.want)
			continue
		}
		// The fake provider launches exactly the pick from the narrowed NodeClaim.
		if got := label(launchWith(controller.Narrowed(c.nc, it, zone, ct), c.its)); got != c.want {
			t.Errorf("%s: the fake launched %v from the narrowed NodeClaim, want %v", c.name, got, c.want)
		}
	}
	// What the fake does on its own where spot is allowed: the cheapest type, its first offering
	// (on-demand) — the launch this pick replaces.
	if got := label(launchWith(claimAllowing([]string{"m5.large", "c5.large"}, "spot", "on-demand"), its)); got != [3]string{"m5.large", "us-east-1a", "on-demand"} {
		t.Errorf("the fake's own launch: %v, want m5.large us-east-1a on-demand", got)
	}
	// Nothing launchable: the pick declines and the fake decides (and errs) as before.
	if _, _, _, ok := pick(claimAllowing([]string{"r5.large"}, "spot"), its); ok {
		t.Errorf("no compatible type: the pick should decline")
	}
}

package main

// The AWS provider's launch filters as the harness's launch set applies them (catalog.go launch).

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

func offering(ct, zone string, price float64) *cloudprovider.Offering {
	return &cloudprovider.Offering{
		Requirements: scheduling.NewLabelRequirements(map[string]string{v1.CapacityTypeLabelKey: ct, corev1.LabelTopologyZone: zone}),
		Price:        price,
		Available:    true,
	}
}

func plainType(name string, offs ...*cloudprovider.Offering) *cloudprovider.InstanceType {
	return &cloudprovider.InstanceType{
		Name:         name,
		Requirements: scheduling.NewLabelRequirements(map[string]string{corev1.LabelInstanceTypeStable: name}),
		Offerings:    offs,
	}
}

// gates-136 and gates-272: a NodeOverlay prices every spot offering at 1.5, above the cheapest
// on-demand one (0.526). The AWS provider's spot-offering-filter drops those spot offerings
// before getCapacityType, so the launch is on-demand (nodecast's answer); the harness had
// launched spot because spot was allowed and available.
func TestLaunchDropsSpotDearerThanOnDemand(t *testing.T) {
	its := cloudprovider.InstanceTypes{
		plainType("g4dn.xlarge", offering("on-demand", "us-east-1a", 0.526), offering("spot", "us-east-1a", 1.5)),
		plainType("g4dn.2xlarge", offering("on-demand", "us-east-1a", 0.752), offering("spot", "us-east-1a", 1.5)),
	}
	both := scheduling.NewRequirements(scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand"))
	l := launch(its, both, true)
	if l == nil || l.CapacityType != "on-demand" || l.Cheapest != 0.526 || len(l.Types) != 1 || l.Types["g4dn.xlarge"] == nil {
		t.Fatalf("spot above on-demand: got %+v, want on-demand g4dn.xlarge at 0.526", l)
	}
	// A spot offering at or below the cheapest on-demand one stays, and spot is preferred.
	its[1].Offerings[1].Price = 0.5
	if l := launch(its, both, true); l == nil || l.CapacityType != "spot" || len(l.Types) != 1 || l.Types["g4dn.2xlarge"] == nil {
		t.Fatalf("one spot offering below on-demand: got %+v, want spot g4dn.2xlarge", l)
	}
	its[1].Offerings[1].Price = 1.5
	// Spot only: the filter needs both capacity types allowed.
	spot := scheduling.NewRequirements(scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot"))
	if l := launch(its, spot, true); l == nil || l.CapacityType != "spot" || len(l.Types) != 2 {
		t.Fatalf("spot only: got %+v, want spot among both types", l)
	}
	// minValues turns the AWS provider's filters off.
	mv := scheduling.NewRequirements(
		scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand"),
		scheduling.NewRequirementWithFlexibility(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, lo_ptr(2), "g4dn.xlarge", "g4dn.2xlarge"),
	)
	if l := launch(its, mv, true); l == nil || l.CapacityType != "spot" {
		t.Fatalf("with minValues: got %+v, want spot", l)
	}
}

func lo_ptr[T any](v T) *T { return &v }

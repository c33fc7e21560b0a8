package main

// The running controller's launches made as the AWS provider makes them (issue 36, part 3): the
// harness's fake cloud provider takes the cheapest compatible instance type and then its first
// compatible offering, which is on-demand wherever the NodeClaim allows both; the AWS provider
// (and nodecast) launch spot there. awsLaunchPick is the harness's LaunchPick.

import (
	"slices"
	"sort"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	"github.com/nodecast/nodecast/oracle/controller"
)

// awsLaunchPick: the offering the AWS provider's launch would take for a NodeClaim, as one
// (instance type, zone, capacity type). The candidates are the oracle's launch set (catalog.go
// launch: the capacity type getCapacityType chooses — reserved, then spot when the NodeClaim
// allows it and a compatible spot offering survives the provider's filters, else on-demand — and
// the (type, zone) pairs that CreateFleet may launch), among the types the fake provider would
// consider (compatible, with an available compatible offering, and fitting the NodeClaim's
// requests). Of those it takes the cheapest offering, ties by type name then zone: on-demand
// Fleets use the lowest-price strategy, so that is EC2's choice; spot Fleets use
// price-capacity-optimized, which weighs spare capacity nobody outside EC2 sees and then price,
// so the cheapest is the one a model without capacity data can name (nodecast reports it too).
// A reserved launch is declined (ok false): the fake already launches into a reserved offering
// with room first.
func awsLaunchPick(aws bool) controller.LaunchPick {
	return func(nc *v1.NodeClaim, its []*cloudprovider.InstanceType) (string, string, string, bool) {
		reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
		var fit cloudprovider.InstanceTypes
		for _, it := range its {
			if reqs.IsCompatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) &&
				it.Offerings.Available().HasCompatible(reqs) && resources.Fits(nc.Spec.Resources.Requests, it.Allocatable()) {
				fit = append(fit, it)
			}
		}
		l := launch(fit, reqs, aws)
		if l == nil || l.CapacityType == v1.CapacityTypeReserved {
			return "", "", "", false
		}
		type cand struct {
			it, zone string
			price    float64
		}
		var cands []cand
		for _, it := range fit {
			zones := l.Types[it.Name]
			for _, o := range it.Offerings.Available().Compatible(reqs) {
				if o.CapacityType() == l.CapacityType && slices.Contains(zones, o.Zone()) {
					cands = append(cands, cand{it.Name, o.Zone(), o.Price})
				}
			}
		}
		if len(cands) == 0 {
			return "", "", "", false
		}
		sort.Slice(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if a.price != b.price {
				return a.price < b.price
			}
			if a.it != b.it {
				return a.it < b.it
			}
			return a.zone < b.zone
		})
		return cands[0].it, cands[0].zone, l.CapacityType, true
	}
}

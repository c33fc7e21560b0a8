package main

// Instance types for Karpenter, built from the catalog nodecast resolved for the scenario (printed
// by `nodecast-conformance --oracle`), so both sides see the same types, offerings and prices.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/samber/lo"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

type CatalogOffering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Available    bool    `json:"available"`
	// Reserved offerings only (issue 38; reserved.go).
	ReservationID            string `json:"reservationId,omitempty"`
	ReservationCapacity      int    `json:"reservationCapacity,omitempty"`
	ReservationType          string `json:"reservationType,omitempty"`
	ReservationInterruptible bool   `json:"reservationInterruptible,omitempty"`
	// The EC2NodeClasses whose selector terms selected a reserved offering's reservation (nodecast
	// has one catalog for all NodePools; the AWS provider makes offerings per EC2NodeClass).
	NodeClasses []string `json:"nodeClasses,omitempty"`
}

type CatalogType struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Allocatable map[string]string `json:"allocatable"`
	Capacity    map[string]string `json:"capacity"`
	Offerings   []CatalogOffering `json:"offerings"`
}

type Catalog struct {
	Source string        `json:"source"`
	Zones  []string      `json:"zones"`
	Types  []CatalogType `json:"types"`
}

// LabelKeys are the instance-type label keys of the catalog (FORMAT.md §2.3).
func (c *Catalog) LabelKeys() sets.Set[string] {
	keys := sets.New(corev1.LabelInstanceTypeStable, corev1.LabelArchStable, corev1.LabelOSStable, corev1.LabelTopologyZone, v1.CapacityTypeLabelKey)
	for _, t := range c.Types {
		for k := range t.Labels {
			keys.Insert(k)
		}
	}
	return keys
}

var baseWellKnown = v1.WellKnownLabels.Clone()

// Register makes the catalog's label keys well-known, as the AWS provider does for its
// karpenter.k8s.aws/* labels (and FORMAT.md §2.3 for inline catalogs). The reservation labels are
// among the AWS provider's well-known labels whether or not a reservation exists (only a scenario
// that names them can tell).
func (c *Catalog) Register() {
	v1.WellKnownLabels = baseWellKnown.Clone().Union(c.LabelKeys())
	v1.WellKnownLabels.Insert(reservationLabels...)
	v1.RestrictedLabelDomains = v1.RestrictedLabelDomains.Insert("karpenter.k8s.aws")
}

func (c *Catalog) aws() bool { return c.Source == "aws-us-east-1" }

func quantities(m map[string]string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		out[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return out
}

// InstanceTypes builds Karpenter instance types. Capacity is the catalog capacity; the overhead is
// what separates it from the catalog's allocatable, so Karpenter's allocatable equals nodecast's.
// `reserved` holds, per type name, the reserved offerings of one EC2NodeClass (reserved.go); the
// catalog's own reserved offerings are nodecast's view of them and are not used here.
func (c *Catalog) InstanceTypes(reserved map[string][]CatalogOffering) cloudprovider.InstanceTypes {
	keys := sets.List(c.LabelKeys())
	var out cloudprovider.InstanceTypes
	for _, t := range c.Types {
		out = append(out, c.instanceType(t, keys, reserved[t.Name]))
	}
	return out
}

// WithReserved is `base` (InstanceTypes(nil)) with the types that have reserved offerings rebuilt:
// the others are shared, so a NodePool's own list costs only its reserved types.
func (c *Catalog) WithReserved(base cloudprovider.InstanceTypes, reserved map[string][]CatalogOffering) cloudprovider.InstanceTypes {
	keys := sets.List(c.LabelKeys())
	out := make(cloudprovider.InstanceTypes, len(base))
	copy(out, base)
	for i, t := range c.Types {
		if len(reserved[t.Name]) > 0 {
			out[i] = c.instanceType(t, keys, reserved[t.Name])
		}
	}
	return out
}

func (c *Catalog) instanceType(t CatalogType, keys []string, reserved []CatalogOffering) *cloudprovider.InstanceType {
	{
		alloc := quantities(t.Allocatable)
		capacity := quantities(t.Capacity)
		for k, q := range alloc {
			if cq, ok := capacity[k]; !ok || cq.Cmp(q) < 0 {
				capacity[k] = q.DeepCopy()
			}
		}
		overhead := corev1.ResourceList{}
		for k, cq := range capacity {
			aq, ok := alloc[k]
			if !ok {
				aq = resource.Quantity{}
			}
			d := cq.DeepCopy()
			d.Sub(aq)
			if d.Sign() > 0 {
				overhead[k] = d
			}
		}
		var offerings cloudprovider.Offerings
		zones, cts := sets.New[string](), sets.New[string]()
		for _, o := range t.Offerings {
			if o.CapacityType == v1.CapacityTypeReserved {
				continue
			}
			off := &cloudprovider.Offering{
				Requirements: scheduling.NewLabelRequirements(map[string]string{v1.CapacityTypeLabelKey: o.CapacityType, corev1.LabelTopologyZone: o.Zone}),
				Price:        o.Price,
				Available:    o.Available,
			}
			if c.aws() {
				// offering/base_resolver.go: on-demand and spot offerings have no reservation labels.
				for _, k := range reservationLabels {
					off.Requirements.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
				}
			}
			offerings = append(offerings, off)
			if o.Available {
				zones.Insert(o.Zone)
				cts.Insert(o.CapacityType)
			}
		}
		// offering/reserved_capacity_resolver.go: one offering per selected reservation of the type.
		ids, rtypes, interruptible := sets.New[string](), sets.New[string](), sets.New[string]()
		for _, o := range reserved {
			offerings = append(offerings, &cloudprovider.Offering{
				Requirements: scheduling.NewLabelRequirements(map[string]string{
					v1.CapacityTypeLabelKey: v1.CapacityTypeReserved, corev1.LabelTopologyZone: o.Zone,
					labelReservationID: o.ReservationID, labelReservationType: o.ReservationType,
					labelReservationInterruptible: fmt.Sprintf("%t", o.ReservationInterruptible),
				}),
				Price:               o.Price,
				Available:           o.Available,
				ReservationCapacity: o.ReservationCapacity,
			})
			ids.Insert(o.ReservationID)
			rtypes.Insert(o.ReservationType)
			interruptible.Insert(fmt.Sprintf("%t", o.ReservationInterruptible))
		}
		// instancetype/types.go computeRequirements: `reserved` is a capacity type of every type with
		// a status entry (full, expiring or in another zone alike), and the reservation labels take
		// the entries' values; without one they do not exist.
		if ids.Len() > 0 {
			cts.Insert(v1.CapacityTypeReserved)
		}
		reqs := scheduling.NewRequirements(
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, sets.List(zones)...),
			scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, sets.List(cts)...),
		)
		if c.aws() || ids.Len() > 0 {
			for k, vs := range map[string]sets.Set[string]{labelReservationID: ids, labelReservationType: rtypes, labelReservationInterruptible: interruptible} {
				if vs.Len() > 0 {
					reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, sets.List(vs)...))
				} else {
					reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
				}
			}
		}
		labels := map[string]string{corev1.LabelInstanceTypeStable: t.Name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"}
		for k, v := range t.Labels {
			labels[k] = v
		}
		for _, k := range keys {
			if k == corev1.LabelTopologyZone || k == v1.CapacityTypeLabelKey || reqs.Has(k) {
				continue
			}
			if v, ok := labels[k]; ok {
				reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, v))
			} else {
				reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
			}
		}
		return &cloudprovider.InstanceType{
			Name:         t.Name,
			Requirements: reqs,
			Offerings:    offerings,
			Capacity:     capacity,
			Overhead:     &cloudprovider.InstanceTypeOverhead{KubeReserved: overhead},
		}
	}
}

// exotic: a metal size or a type with an accelerator resource (FORMAT.md §2.1 launch filter).
var accelerators = []corev1.ResourceName{"nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "habana.ai/gaudi"}

func exotic(it *cloudprovider.InstanceType) bool {
	// Any metal size ("metal", "metal-24xl", ...): filter.go's exotic filter matches the substring.
	if it.Requirements.Has("karpenter.k8s.aws/instance-size") && lo.ContainsBy(it.Requirements.Get("karpenter.k8s.aws/instance-size").Values(), func(s string) bool { return strings.Contains(s, "metal") }) {
		return true
	}
	for _, r := range accelerators {
		if q, ok := it.Capacity[r]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}

// Launch is the AWS provider's launch choice for a NodeClaim (FORMAT.md §2.4): the capacity type
// and every (type, zone) it may launch. On-demand: the cheapest offerings (ties are EC2's pick);
// spot: EC2 chooses among all options with a compatible available spot offering.
type Launch struct {
	CapacityType string              `json:"capacityType"`
	Cheapest     float64             `json:"cheapest"`
	Types        map[string][]string `json:"types"` // acceptable type -> acceptable zones
	// A reserved launch: the reservation each acceptable "type/zone" launches into.
	Reservations map[string]string `json:"reservations,omitempty"`
}

func launch(its cloudprovider.InstanceTypes, reqs scheduling.Requirements, aws bool) *Launch {
	// getCapacityType (AWS provider): reserved first, when a compatible reserved offering can launch.
	if l := reservedLaunch(its, reqs, aws); l != nil {
		return l
	}
	// The AWS provider's launch filters (instance.go filterInstanceTypes, filter/filter.go), both
	// skipped when a requirement has minValues: exotic types only when nothing else remains, then
	// spot offerings priced above the cheapest compatible on-demand one dropped when the claim
	// allows both (prices as the NodeOverlays set them: cloudprovider.go Create applies them).
	spotCap := math.Inf(1)
	if aws && !reqs.HasMinValues() {
		if plain := lo_filter(its, func(it *cloudprovider.InstanceType) bool { return !exotic(it) }); len(plain) > 0 {
			its = plain
		}
		spotCap = spotPriceCap(its, reqs)
	}
	compatible := func(ct string) []struct {
		it *cloudprovider.InstanceType
		o  *cloudprovider.Offering
	} {
		var out []struct {
			it *cloudprovider.InstanceType
			o  *cloudprovider.Offering
		}
		for _, it := range its {
			for _, o := range it.Offerings {
				if o.Available && o.CapacityType() == ct && reqs.IsCompatible(o.Requirements, scheduling.AllowUndefinedWellKnownLabels) &&
					(ct != v1.CapacityTypeSpot || o.Price <= spotCap) {
					out = append(out, struct {
						it *cloudprovider.InstanceType
						o  *cloudprovider.Offering
					}{it, o})
				}
			}
		}
		return out
	}
	ct := v1.CapacityTypeOnDemand
	offs := compatible(v1.CapacityTypeSpot)
	if reqs.Get(v1.CapacityTypeLabelKey).Has(v1.CapacityTypeSpot) && len(offs) > 0 {
		ct = v1.CapacityTypeSpot
	} else {
		offs = compatible(v1.CapacityTypeOnDemand)
	}
	if len(offs) == 0 {
		return nil
	}
	l := &Launch{CapacityType: ct, Types: map[string][]string{}}
	min := offs[0].o.Price
	for _, x := range offs {
		if x.o.Price < min {
			min = x.o.Price
		}
	}
	l.Cheapest = min
	// Per type, the cheapest zones; which types qualify depends on the capacity type.
	best := map[string]float64{}
	for _, x := range offs {
		if p, ok := best[x.it.Name]; !ok || x.o.Price < p {
			best[x.it.Name] = x.o.Price
		}
	}
	for _, x := range offs {
		if x.o.Price != best[x.it.Name] {
			continue
		}
		if ct == v1.CapacityTypeOnDemand && x.o.Price != min {
			continue
		}
		l.Types[x.it.Name] = append(l.Types[x.it.Name], x.o.Zone())
	}
	for k := range l.Types {
		sort.Strings(l.Types[k])
	}
	return l
}

// spotPriceCap: the AWS provider's spot-offering-filter (filter.go SpotOfferingFilter) as a price
// cap. With both spot and on-demand allowed and both available among the compatible offerings, a
// spot offering dearer than the cheapest on-demand one is dropped; so an overlay pricing spot
// above on-demand makes the launch on-demand. No cap: +Inf.
func spotPriceCap(its cloudprovider.InstanceTypes, reqs scheduling.Requirements) float64 {
	if ct := reqs.Get(v1.CapacityTypeLabelKey); !ct.Has(v1.CapacityTypeOnDemand) || !ct.Has(v1.CapacityTypeSpot) {
		return math.Inf(1)
	}
	cheapestOD, hasOD, hasSpot := math.MaxFloat64, false, false
	for _, it := range its {
		for _, o := range it.Offerings.Compatible(reqs).Available() {
			switch o.CapacityType() {
			case v1.CapacityTypeOnDemand:
				hasOD = true
				cheapestOD = math.Min(cheapestOD, o.Price)
			case v1.CapacityTypeSpot:
				hasSpot = true
			}
		}
	}
	if !hasOD || !hasSpot {
		return math.Inf(1)
	}
	return cheapestOD
}

func lo_filter[T any](xs []T, f func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if f(x) {
			out = append(out, x)
		}
	}
	return out
}

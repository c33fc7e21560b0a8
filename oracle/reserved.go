package main

// Reserved capacity (issue 38) on the Karpenter side. Karpenter's core never sees a capacity
// reservation, only the reserved offerings the AWS provider makes of them, so this file plays the
// AWS provider's part, written from its v1.15.0 code (file names below), and hands the offerings
// to Karpenter's real scheduler:
//   - which reservations an EC2NodeClass selects (providers/capacityreservation: one EC2 query per
//     selector term kind, always filtered to state=active; de-duplicated by id; a reservation whose
//     EndDate has passed is dropped) and how each becomes a status entry (apis/v1/
//     ec2nodeclass_status.go: a capacity block in its last 40 minutes is `expiring`; entries sorted
//     by id in controllers/nodeclass/capacityreservation.go);
//   - the offering of each entry (providers/instancetype/offering/reserved_capacity_resolver.go);
//   - the launch's choice among a NodeClaim's reserved offerings (providers/instance/filter).

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// The AWS provider's reserved-offering labels (apis/v1/labels.go).
const (
	labelReservationID            = "karpenter.k8s.aws/capacity-reservation-id"
	labelReservationType          = "karpenter.k8s.aws/capacity-reservation-type"
	labelReservationInterruptible = "karpenter.k8s.aws/capacity-reservation-interruptible"
	reservationTypeDefault        = "default"
	reservationTypeCapacityBlock  = "capacity-block"
	// apis/v1/ec2nodeclass_status.go: a capacity block is `expiring` this long before its end.
	capacityBlockExpiry = 40 * time.Minute
	// offering/reserved_capacity_resolver.go: a reserved offering costs the on-demand price over this.
	reservedPriceDivisor = 10_000_000.0
)

var reservationLabels = []string{labelReservationID, labelReservationType, labelReservationInterruptible}

func init() {
	// The fake cloud provider points the reservation-id label at a test label; the AWS provider at
	// its own (apis/v1/doc.go), which also names the labels dropped when a reservation ends.
	cloudprovider.ReservationIDLabel = labelReservationID
	cloudprovider.ReservedCapacityLabels.Delete(cloudprovider.ReservedCapacityLabels.UnsortedList()...)
	cloudprovider.ReservedCapacityLabels.Insert(labelReservationID, labelReservationType)
}

// CapacityReservation is one entry of `aws ec2 describe-capacity-reservations` (AWS CLI names).
type CapacityReservation struct {
	CapacityReservationID  string  `json:"CapacityReservationId"`
	OwnerID                string  `json:"OwnerId"`
	InstanceType           string  `json:"InstanceType"`
	AvailabilityZone       string  `json:"AvailabilityZone"`
	AvailableInstanceCount int     `json:"AvailableInstanceCount"`
	TotalInstanceCount     int     `json:"TotalInstanceCount"`
	State                  string  `json:"State"`
	InstanceMatchCriteria  string  `json:"InstanceMatchCriteria"`
	StartDate              string  `json:"StartDate,omitempty"`
	EndDate                string  `json:"EndDate,omitempty"`
	EndDateType            string  `json:"EndDateType,omitempty"`
	ReservationType        string  `json:"ReservationType,omitempty"`
	Interruptible          *bool   `json:"Interruptible,omitempty"`
	Tags                   []CRTag `json:"Tags,omitempty"`
}

type CRTag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// CRSelectorTerm is an EC2NodeClass capacityReservationSelectorTerm.
type CRSelectorTerm struct {
	Tags                  map[string]string `json:"tags,omitempty"`
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

type EC2NodeClass struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		CapacityReservationSelectorTerms []CRSelectorTerm `json:"capacityReservationSelectorTerms"`
	} `json:"spec"`
}

// endDate parses the AWS CLI's timestamps ("2025-03-05T12:30:00+00:00", "…T12:30:00.000Z").
func endDate(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, fmt.Errorf("EndDate %q is not a timestamp", s)
}

// crQuery is one DescribeCapacityReservations call (capacityreservation/types.go Query).
type crQuery struct {
	id, owner, imc string
	tags           map[string]string
}

func queries(terms []CRSelectorTerm) []crQuery {
	var out []crQuery
	for _, t := range terms {
		if t.ID != "" {
			out = append(out, crQuery{id: t.ID})
		}
		if len(t.Tags) != 0 || t.InstanceMatchCriteria != "" {
			out = append(out, crQuery{owner: t.OwnerID, tags: t.Tags, imc: t.InstanceMatchCriteria})
		}
	}
	return out
}

// matches is EC2's evaluation of the query's filters (all ANDed; every query carries state=active).
// A tag value "*" is Karpenter's "any value" (it sends a tag-key filter instead of tag:<k>).
func (q crQuery) matches(r *CapacityReservation) bool {
	if r.State != "active" {
		return false
	}
	if q.id != "" {
		return r.CapacityReservationID == q.id
	}
	if q.owner != "" && r.OwnerID != q.owner {
		return false
	}
	if q.imc != "" && r.InstanceMatchCriteria != q.imc {
		return false
	}
	for k, v := range q.tags {
		found := false
		for _, t := range r.Tags {
			if t.Key == k && (v == "*" || t.Value == v) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// SelectedReservation is an EC2NodeClass status entry (apis/v1/ec2nodeclass_status.go).
type SelectedReservation struct {
	ID, InstanceType, Zone, Type string
	Interruptible, Expiring      bool
	Available                    int
}

// Select returns the status entries of a node class at `now`, sorted by id.
func Select(nc *EC2NodeClass, crs []*CapacityReservation, now time.Time) ([]SelectedReservation, error) {
	if nc == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []SelectedReservation
	for _, q := range queries(nc.Spec.CapacityReservationSelectorTerms) {
		for _, r := range crs {
			if !q.matches(r) || seen[r.CapacityReservationID] {
				continue
			}
			seen[r.CapacityReservationID] = true
			end, err := endDate(r.EndDate)
			if err != nil {
				return nil, fmt.Errorf("capacity reservation %s: %w", r.CapacityReservationID, err)
			}
			// provider.go filterReservations: only reservations that have not ended.
			if end != nil && !end.After(now) {
				continue
			}
			// CapacityReservationFromEC2 drops unknown match criteria and reservation types.
			if r.InstanceMatchCriteria != "open" && r.InstanceMatchCriteria != "targeted" {
				continue
			}
			typ := r.ReservationType
			if typ == "" {
				typ = reservationTypeDefault
			}
			if typ != reservationTypeDefault && typ != reservationTypeCapacityBlock {
				continue
			}
			s := SelectedReservation{ID: r.CapacityReservationID, InstanceType: r.InstanceType, Zone: r.AvailabilityZone, Type: typ,
				Interruptible: r.Interruptible != nil && *r.Interruptible, Available: r.AvailableInstanceCount}
			s.Expiring = typ == reservationTypeCapacityBlock && end != nil && !now.Before(end.Add(-capacityBlockExpiry))
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// reservedOfferings: the catalog offerings (capacity type "reserved") the AWS provider makes of a
// node class's status entries, per instance type, in status order.
func (c *Catalog) reservedOfferings(sel []SelectedReservation) map[string][]CatalogOffering {
	byName := map[string]*CatalogType{}
	for i := range c.Types {
		byName[c.Types[i].Name] = &c.Types[i]
	}
	out := map[string][]CatalogOffering{}
	for _, s := range sel {
		t := byName[s.InstanceType]
		if t == nil {
			continue
		}
		// The pricing provider's on-demand price is per type; the type's zones are those EC2
		// offers it in (the catalog's zones), whatever their availability.
		odPrice, zoned := 0.0, false
		for _, o := range t.Offerings {
			if o.CapacityType == v1.CapacityTypeOnDemand && odPrice == 0 {
				odPrice = o.Price
			}
			if o.CapacityType != v1.CapacityTypeReserved && o.Zone == s.Zone {
				zoned = true
			}
		}
		out[s.InstanceType] = append(out[s.InstanceType], CatalogOffering{
			Zone: s.Zone, CapacityType: v1.CapacityTypeReserved, Price: odPrice / reservedPriceDivisor,
			Available:     zoned && !s.Expiring,
			ReservationID: s.ID, ReservationCapacity: s.Available, ReservationType: s.Type, ReservationInterruptible: s.Interruptible,
		})
	}
	return out
}

// PoolReservations: for each NodePool, the reserved offerings of the EC2NodeClass it references.
func (c *Catalog) PoolReservations(o *Objects, now time.Time) (map[string]map[string][]CatalogOffering, error) {
	if len(o.Reservations) == 0 {
		return nil, nil
	}
	classes := map[string]*EC2NodeClass{}
	for _, nc := range o.NodeClasses {
		classes[nc.Metadata.Name] = nc
	}
	out := map[string]map[string][]CatalogOffering{}
	for _, np := range o.NodePools {
		sel, err := Select(classes[o.PoolNodeClass[np.Name]], o.Reservations, now)
		if err != nil {
			return nil, err
		}
		out[np.Name] = c.reservedOfferings(sel)
	}
	return out, nil
}

// offeringKey names a reserved offering for comparisons and cache keys.
func offeringKey(o CatalogOffering) string {
	return fmt.Sprintf("%s/%s/%s/%d/%s/%t/%t/%.12g", o.ReservationID, o.Zone, o.CapacityType, o.ReservationCapacity, o.ReservationType, o.ReservationInterruptible, o.Available, o.Price)
}

func extraKey(extra map[string][]CatalogOffering) string {
	var parts []string
	for t, os := range extra {
		for _, o := range os {
			parts = append(parts, t+"="+offeringKey(o))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// reservedLaunch is the AWS provider's launch for a NodeClaim that may launch reserved
// (instance.go filterInstanceTypes + getCapacityType, filter/filter.go), or nil when it would
// launch spot or on-demand. Offerings are filtered in copies: Karpenter's are shared.
func reservedLaunch(its []*cloudprovider.InstanceType, reqs scheduling.Requirements, aws bool) *Launch {
	if !reqs.Get(v1.CapacityTypeLabelKey).Has(v1.CapacityTypeReserved) {
		return nil
	}
	type cand struct {
		it   *cloudprovider.InstanceType
		offs []*cloudprovider.Offering
	}
	reservedOf := func(it *cloudprovider.InstanceType) []*cloudprovider.Offering {
		var out []*cloudprovider.Offering
		for _, o := range it.Offerings {
			if o.CapacityType() == v1.CapacityTypeReserved && o.Launchable() && reqs.IsCompatible(o.Requirements, scheduling.AllowUndefinedWellKnownLabels) {
				out = append(out, o)
			}
		}
		return out
	}
	// CapacityReservationTypeFilter: the partition (type, interruptible) with the cheapest launchable
	// compatible reserved offering; ties go default < capacity-block < interruptible default.
	type part struct {
		typ           string
		interruptible bool
	}
	prio := map[part]int{{reservationTypeDefault, false}: 0, {reservationTypeCapacityBlock, false}: 1, {reservationTypeDefault, true}: 2}
	cheapest := map[part]float64{}
	for _, it := range its {
		for _, o := range reservedOf(it) {
			p := part{o.Requirements.Get(labelReservationType).Any(), o.Requirements.Get(labelReservationInterruptible).Any() == "true"}
			if c, ok := cheapest[p]; !ok || o.Price < c {
				cheapest[p] = o.Price
			}
		}
	}
	if len(cheapest) == 0 {
		// No reserved offering can launch: getCapacityType falls to spot / on-demand.
		return nil
	}
	var chosen part
	first := true
	for p, c := range cheapest {
		if first || c < cheapest[chosen] || (c == cheapest[chosen] && prio[p] < prio[chosen]) {
			chosen, first = p, false
		}
	}
	var cands []cand
	for _, it := range its {
		var offs []*cloudprovider.Offering
		for _, o := range reservedOf(it) {
			if o.Requirements.Get(labelReservationType).Any() == chosen.typ && (o.Requirements.Get(labelReservationInterruptible).Any() == "true") == chosen.interruptible {
				offs = append(offs, o)
			}
		}
		if len(offs) > 0 {
			cands = append(cands, cand{it, offs})
		}
	}
	if chosen.typ == reservationTypeCapacityBlock {
		// CapacityBlockFilter: one type, one offering — per type the first cheapest block in offering
		// (status = id) order, then the cheapest type. Types of equal price are EC2-side ties here.
		min := math.MaxFloat64
		for i := range cands {
			best := cands[i].offs[0]
			for _, o := range cands[i].offs[1:] {
				if o.Price < best.Price {
					best = o
				}
			}
			cands[i].offs = []*cloudprovider.Offering{best}
			min = math.Min(min, best.Price)
		}
		cands = lo_filter(cands, func(c cand) bool { return c.offs[0].Price == min })
	} else {
		// ReservedOfferingFilter: per type and zone the offering with the most capacity left (the
		// first in id order on a tie): CreateFleet takes one offering per pool.
		for i := range cands {
			byZone := map[string]*cloudprovider.Offering{}
			var zones []string
			for _, o := range cands[i].offs {
				cur, ok := byZone[o.Zone()]
				if !ok {
					zones = append(zones, o.Zone())
				}
				if !ok || o.ReservationCapacity > cur.ReservationCapacity {
					byZone[o.Zone()] = o
				}
			}
			cands[i].offs = nil
			for _, z := range zones {
				cands[i].offs = append(cands[i].offs, byZone[z])
			}
		}
	}
	// ExoticInstanceTypeFilter (skipped when the requirements carry minValues).
	if aws && !reqs.HasMinValues() {
		if plain := lo_filter(cands, func(c cand) bool { return !exotic(c.it) }); len(plain) > 0 {
			cands = plain
		}
	}
	// CreateFleet's lowest-price pick among the overrides (one per type and zone).
	l := &Launch{CapacityType: v1.CapacityTypeReserved, Cheapest: math.MaxFloat64, Types: map[string][]string{}, Reservations: map[string]string{}}
	for _, c := range cands {
		for _, o := range c.offs {
			l.Cheapest = math.Min(l.Cheapest, o.Price)
		}
	}
	for _, c := range cands {
		for _, o := range c.offs {
			if o.Price == l.Cheapest {
				l.Types[c.it.Name] = append(l.Types[c.it.Name], o.Zone())
				l.Reservations[c.it.Name+"/"+o.Zone()] = o.ReservationID()
			}
		}
	}
	for k := range l.Types {
		sort.Strings(l.Types[k])
	}
	return l
}

// CheckReservedOfferings compares nodecast's reserved offerings (`nodecast`, per instance type,
// from the scenario's line) with the harness's own selection, per NodePool: "" when they agree,
// else what differs. A disagreement here is reported on its own (it would otherwise surface as a
// harder-to-read decision diff).
func (c *Catalog) CheckReservedOfferings(s *Scenario, nodecast map[string][]CatalogOffering) string {
	objs, err := s.ParseObjects()
	if err != nil {
		return err.Error()
	}
	now := defaultNow
	if s.Clock.Now != "" {
		if now, err = time.Parse(time.RFC3339, s.Clock.Now); err != nil {
			return err.Error()
		}
	}
	gateOn := true
	for _, kv := range strings.Split(settingString(s.Settings, "featureGates"), ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "ReservedCapacity" {
			gateOn = strings.EqualFold(v, "true")
		}
	}
	mine := map[string]map[string][]CatalogOffering{}
	if gateOn {
		if mine, err = c.PoolReservations(objs, now); err != nil {
			return err.Error()
		}
	}
	for _, np := range objs.NodePools {
		class := objs.PoolNodeClass[np.Name]
		theirs := map[string][]CatalogOffering{}
		for name, offs := range nodecast {
			for _, o := range offs {
				if slices.Contains(o.NodeClasses, class) {
					theirs[name] = append(theirs[name], o)
				}
			}
		}
		if a, b := extraKey(theirs), extraKey(mine[np.Name]); a != b {
			return fmt.Sprintf("NodePool %s (EC2NodeClass %q): nodecast [%s], karpenter [%s]", np.Name, class, a, b)
		}
	}
	return ""
}

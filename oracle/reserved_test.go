package main

// Reserved capacity on the Karpenter side: the AWS provider's selection (reserved.go) and what
// Karpenter's own scheduler does with the offerings, run on small hand-written scenarios. These are
// the runs behind the "[run]" rules in docs/karpenter-fidelity.md ("Reserved capacity").

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

var selNow = time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)

func cr(id, typ, zone, state string, avail int, mods ...func(*CapacityReservation)) *CapacityReservation {
	c := &CapacityReservation{CapacityReservationID: id, InstanceType: typ, AvailabilityZone: zone, State: state, AvailableInstanceCount: avail,
		TotalInstanceCount: avail + 1, InstanceMatchCriteria: "targeted", OwnerID: "111122223333"}
	for _, m := range mods {
		m(c)
	}
	return c
}

func ids(sel []SelectedReservation) string {
	var out []string
	for _, s := range sel {
		x := s.ID
		if s.Expiring {
			x += "(expiring)"
		}
		out = append(out, x)
	}
	return strings.Join(out, ",")
}

func TestSelectFollowsTheAWSProvider(t *testing.T) {
	tagged := func(k, v string) func(*CapacityReservation) {
		return func(c *CapacityReservation) { c.Tags = append(c.Tags, CRTag{Key: k, Value: v}) }
	}
	ends := func(d time.Duration, block bool) func(*CapacityReservation) {
		return func(c *CapacityReservation) {
			c.EndDate = selNow.Add(d).Format("2006-01-02T15:04:05.000Z")
			if block {
				c.ReservationType = "capacity-block"
			}
		}
	}
	crs := []*CapacityReservation{
		cr("cr-b", "g5.xlarge", "us-east-1a", "active", 1, tagged("team", "ml")),
		cr("cr-a", "g5.xlarge", "us-east-1b", "active", 0, tagged("team", "web")),
		cr("cr-c", "g5.xlarge", "us-east-1a", "expired", 1, tagged("team", "ml")),
		cr("cr-d", "p5.48xlarge", "us-east-1a", "active", 2, ends(39*time.Minute, true), tagged("team", "ml")),
		cr("cr-e", "p5.48xlarge", "us-east-1a", "active", 2, ends(41*time.Minute, true)),
		cr("cr-f", "g5.xlarge", "us-east-1a", "active", 1, ends(-time.Minute, false), tagged("team", "ml")),
		cr("cr-g", "g5.xlarge", "us-east-1c", "active", 1, func(c *CapacityReservation) { c.InstanceMatchCriteria = "open"; c.OwnerID = "444455556666" }),
	}
	class := func(terms ...CRSelectorTerm) *EC2NodeClass {
		nc := &EC2NodeClass{}
		nc.Spec.CapacityReservationSelectorTerms = terms
		return nc
	}
	for _, c := range []struct {
		name  string
		terms []CRSelectorTerm
		want  string
	}{
		{"no terms select nothing (open ODCRs are not used implicitly)", nil, ""},
		{"by id, only active", []CRSelectorTerm{{ID: "cr-c"}, {ID: "cr-a"}, {ID: "cr-missing"}}, "cr-a"},
		{"tags: exact value; ended and inactive dropped; a block in its last 40 minutes is expiring", []CRSelectorTerm{{Tags: map[string]string{"team": "ml"}}}, "cr-b,cr-d(expiring)"},
		{"tag value * is any value", []CRSelectorTerm{{Tags: map[string]string{"team": "*"}}}, "cr-a,cr-b,cr-d(expiring)"},
		{"instanceMatchCriteria with ownerID", []CRSelectorTerm{{InstanceMatchCriteria: "open", OwnerID: "444455556666"}}, "cr-g"},
		{"ownerID narrows", []CRSelectorTerm{{InstanceMatchCriteria: "open", OwnerID: "111122223333"}}, ""},
		{"terms are ORed, de-duplicated, sorted by id", []CRSelectorTerm{{ID: "cr-e"}, {Tags: map[string]string{"team": "web"}}, {ID: "cr-a"}}, "cr-a,cr-e"},
	} {
		sel, err := Select(class(c.terms...), crs, selNow)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(sel); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// A one-type catalog: r.large, 2 cpu, on-demand in two zones (spot in one).
func testCatalog() *Catalog {
	return &Catalog{Source: "test", Zones: []string{"us-east-1a", "us-east-1b"}, Types: []CatalogType{{
		Name: "r.large", Labels: map[string]string{"karpenter.k8s.aws/instance-family": "r"},
		Allocatable: map[string]string{"cpu": "2", "memory": "8Gi", "pods": "110"}, Capacity: map[string]string{"cpu": "2", "memory": "8Gi", "pods": "110"},
		Offerings: []CatalogOffering{{Zone: "us-east-1a", CapacityType: "on-demand", Price: 1, Available: true}, {Zone: "us-east-1b", CapacityType: "on-demand", Price: 1, Available: true}},
	}}}
}

func poolDoc(name string, weight int, class string, cts ...string) string {
	return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\nspec:\n  weight: %d\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}\n      requirements:\n      - {key: karpenter.sh/capacity-type, operator: In, values: [%s]}\n---\n", name, weight, class, strings.Join(cts, ", "))
}

const twoPods = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}\n---\n" +
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p2, namespace: default}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}\n---\n"

func nodeClass(name string, ids ...string) string {
	var terms []string
	for _, id := range ids {
		terms = append(terms, "{id: "+id+"}")
	}
	return fmt.Sprintf("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: %s}\nspec:\n  capacityReservationSelectorTerms: [%s]\n---\n", name, strings.Join(terms, ", "))
}

func crDoc(entries ...string) string {
	return "CapacityReservations:\n" + strings.Join(entries, "") + "---\n"
}

func crEntry(id, zone string, avail int, extra string) string {
	return fmt.Sprintf("- {CapacityReservationId: %s, InstanceType: r.large, AvailabilityZone: %s, AvailableInstanceCount: %d, TotalInstanceCount: 4, State: active, InstanceMatchCriteria: targeted, OwnerId: '111122223333'%s}\n", id, zone, avail, extra)
}

// summary: "pool:capacity-type:held:launch-reservations" per claim, then deferred and unschedulable.
func summary(a *ProvisionAnswer) string {
	var cs []string
	for _, c := range a.Claims {
		ct, res := "-", ""
		if c.Launch != nil {
			ct = c.Launch.CapacityType
			var rs []string
			for k, v := range c.Launch.Reservations {
				rs = append(rs, k+"="+v)
			}
			slices.Sort(rs)
			res = strings.Join(rs, "+")
		}
		cs = append(cs, fmt.Sprintf("%s:%s:%s:%s", c.NodePool, ct, strings.Join(c.Held, "+"), res))
	}
	slices.Sort(cs)
	return fmt.Sprintf("claims=%s deferred=%s unschedulable=%s", strings.Join(cs, " "), strings.Join(a.Deferred, ","), strings.Join(a.Unschedulable, ","))
}

func provisionWith(t *testing.T, objects string, settings map[string]any) *ProvisionAnswer {
	t.Helper()
	cat := testCatalog()
	s := &Scenario{Name: "t", Kind: "provision", Objects: objects, Settings: settings}
	s.Clock.Now = selNow.Format(time.RFC3339)
	env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Provision(nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Two pods that each need their own r.large, one reservation slot: what Karpenter v1.15's
// provisioner (strict mode) does in one pass.
func TestKarpenterReservedProvisioning(t *testing.T) {
	for _, c := range []struct {
		name, objects string
		settings      map[string]any
		want          string
	}{
		{"one slot: the first NodeClaim holds it, the second pod is deferred (not unschedulable, no on-demand fallback)",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 1, "")) + twoPods,
			nil, "claims=a:reserved:cr-1:r.large/us-east-1a=cr-1 deferred=default/p2 unschedulable="},
		{"a full reservation with an on-demand fallback: plain on-demand NodeClaims",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 0, "")) + twoPods,
			nil, "claims=a:on-demand:: a:on-demand:: deferred= unschedulable="},
		{"a full reservation in a reserved-only pool: both pods deferred",
			poolDoc("a", 0, "rc", "reserved") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 0, "")) + twoPods,
			nil, "claims= deferred=default/p1,default/p2 unschedulable="},
		{"the reserved pool's error stops the fall-through to a lower-weight on-demand pool",
			poolDoc("a", 10, "rc", "reserved") + poolDoc("b", 1, "rc", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 1, "")) + twoPods,
			nil, "claims=a:reserved:cr-1:r.large/us-east-1a=cr-1 deferred=default/p2 unschedulable="},
		{"a NodeClaim holds a slot in every compatible reservation: two slots in two zones still launch one",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1", "cr-2") + crDoc(crEntry("cr-1", "us-east-1a", 1, ""), crEntry("cr-2", "us-east-1b", 1, "")) + twoPods,
			nil, "claims=a:reserved:cr-1+cr-2:r.large/us-east-1a=cr-1+r.large/us-east-1b=cr-2 deferred=default/p2 unschedulable="},
		{"per zone the launch takes the reservation with the most room (the document's count, not what the pass has left)",
			poolDoc("a", 0, "rc", "reserved") + nodeClass("rc", "cr-1", "cr-2") + crDoc(crEntry("cr-1", "us-east-1a", 1, ""), crEntry("cr-2", "us-east-1a", 3, "")) + twoPods,
			nil, "claims=a:reserved:cr-1+cr-2:r.large/us-east-1a=cr-2 a:reserved:cr-2:r.large/us-east-1a=cr-2 deferred= unschedulable="},
		{"a capacity block in its last 40 minutes is not offered",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 2, ", ReservationType: capacity-block, EndDate: '2025-03-05T12:30:00.000Z'")) + twoPods,
			nil, "claims=a:on-demand:: a:on-demand:: deferred= unschedulable="},
		{"a reservation in a zone the type is not offered in is not offered",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1c", 2, "")) + twoPods,
			nil, "claims=a:on-demand:: a:on-demand:: deferred= unschedulable="},
		{"gate off: no reserved offering",
			poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1") + crDoc(crEntry("cr-1", "us-east-1a", 2, "")) + twoPods,
			map[string]any{"featureGates": "ReservedCapacity=false"}, "claims=a:on-demand:: a:on-demand:: deferred= unschedulable="},
	} {
		if got := summary(provisionWith(t, c.objects, c.settings)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func node(name, ct, extraLabels string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  creationTimestamp: '2025-03-01T00:00:00Z'\n  labels: {karpenter.sh/nodepool: a, node.kubernetes.io/instance-type: r.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: %s%s}\nstatus: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n---\n"+
		"apiVersion: v1\nkind: Pod\nmetadata: {name: on-%s, namespace: default}\nspec: {nodeName: %s, containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}\n---\n", name, ct, extraLabels, name, name)
}

func disruptWith(t *testing.T, objects string) *DisruptAnswer {
	t.Helper()
	cat := testCatalog()
	s := &Scenario{Name: "t", Kind: "disrupt", Objects: objects}
	s.Clock.Now = selNow.Format(time.RFC3339)
	env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Disrupt()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Consolidation prices a reserved node at on-demand / 10,000,000 and simulates in fallback mode.
func TestKarpenterReservedConsolidation(t *testing.T) {
	objects := poolDoc("a", 0, "rc", "reserved", "on-demand") + nodeClass("rc", "cr-1")
	// An on-demand node whose pod fits a free reservation slot: replaced by a reserved NodeClaim.
	a := disruptWith(t, objects+crDoc(crEntry("cr-1", "us-east-1a", 1, ""))+node("n1", "on-demand", ""))
	if a.Decision != "replace" || a.Replacement == nil || a.Replacement.Launch == nil || a.Replacement.Launch.CapacityType != "reserved" ||
		a.Replacement.Launch.Reservations["r.large/us-east-1a"] != "cr-1" {
		t.Fatalf("on-demand node with a free reservation: got %+v (replacement %+v)", a, a.Replacement)
	}
	// The same node, the reservation full: nothing cheaper to move to.
	if a := disruptWith(t, objects+crDoc(crEntry("cr-1", "us-east-1a", 0, ""))+node("n1", "on-demand", "")); a.Decision != "none" {
		t.Fatalf("on-demand node, reservation full: got %+v", a)
	}
	// A reserved node (price ~0): never replaced, even with another slot free.
	if a := disruptWith(t, objects+crDoc(crEntry("cr-1", "us-east-1a", 1, ""))+node("n1", "reserved", ", karpenter.k8s.aws/capacity-reservation-id: cr-1, karpenter.k8s.aws/capacity-reservation-type: default")); a.Decision != "none" {
		t.Fatalf("reserved node: got %+v", a)
	}
}

// nodecast's catalog line must carry the reserved offerings the harness selects, per EC2NodeClass.
func TestCheckReservedOfferings(t *testing.T) {
	s := &Scenario{Name: "t", Kind: "provision", Objects: poolDoc("a", 0, "rc", "reserved") + poolDoc("b", 0, "other", "on-demand") + nodeClass("rc", "cr-1") +
		crDoc(crEntry("cr-1", "us-east-1a", 2, ""), crEntry("cr-2", "us-east-1a", 1, ""))}
	s.Clock.Now = selNow.Format(time.RFC3339)
	cat := testCatalog()
	if d := cat.CheckReservedOfferings(s, nil); !strings.Contains(d, "NodePool a") {
		t.Fatalf("a catalog without the reserved offering should differ, got %q", d)
	}
	off := CatalogOffering{Zone: "us-east-1a", CapacityType: "reserved", Price: 1 / reservedPriceDivisor, Available: true, ReservationID: "cr-1",
		ReservationCapacity: 2, ReservationType: "default", NodeClasses: []string{"rc"}}
	nodecast := map[string][]CatalogOffering{cat.Types[0].Name: {off}}
	if d := cat.CheckReservedOfferings(s, nodecast); d != "" {
		t.Fatalf("expected agreement, got %q", d)
	}
	nodecast[cat.Types[0].Name][0].ReservationCapacity = 1
	if d := cat.CheckReservedOfferings(s, nodecast); d == "" {
		t.Fatal("a different count should differ")
	}
}

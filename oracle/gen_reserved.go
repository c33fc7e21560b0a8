package main

// Random reserved-capacity scenarios (issue 38): kind `reserved` (provisioning) and `rdisrupt`
// (disruption with reserved nodes). Each carries an `aws ec2 describe-capacity-reservations`
// document (ODCRs and capacity blocks; some exhausted, some in a zone the catalog lacks, some not
// active, some ended or in their last 40 minutes, some matched by no selector term), one or two
// EC2NodeClasses with capacityReservationSelectorTerms, and NodePools whose capacity types include
// `reserved`. They use their own seed stream, so the other kinds' scenarios are unchanged.

import (
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// Types reservations are made for: the GPU pools' types and a few general-purpose ones.
var reservedTypes = []string{"g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g6.xlarge", "g6.2xlarge", "g4dn.xlarge", "g6e.xlarge", "m5.large", "m5.xlarge", "c6a.large"}

var owners = []string{"111122223333", "444455556666"}

type genCR struct {
	id, typ, zone, rtype  string
	total, avail          int
	active, interruptible bool
	doc                   map[string]any
}

func generateReserved(kind string, seed int64) (string, error) {
	disrupt := kind == "rdisrupt"
	g := &gen{r: rand.New(rand.NewSource(seed*7919 + map[string]int64{"reserved": 3, "rdisrupt": 4}[kind])), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	g.zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	catalog := any("aws-us-east-1")
	if g.chance(0.2) {
		// A catalog without us-east-1c: reservations there are in a zone the types are not offered in.
		g.zones = g.zones[:2]
		catalog = map[string]any{"source": "aws-us-east-1", "zones": g.zones}
	}
	classes := []string{"default"}
	if g.chance(0.5) {
		classes = append(classes, "reserved-class")
	}
	nPools := 1 + g.r.Intn(3)
	for i := 0; i < nPools; i++ {
		g.reservedPool(i, classes, disrupt)
	}
	crs := g.reservations()
	g.nodeClasses(classes, crs)
	g.daemonSets()
	// Existing nodes: in `rdisrupt` some hold a slot of an active reservation of their type.
	g.nodeHook = func(labels map[string]any, p pool) {
		if labels["karpenter.sh/capacity-type"] != "reserved" {
			return
		}
		var fits []genCR
		for _, c := range crs {
			if c.active && c.typ == labels["node.kubernetes.io/instance-type"] {
				fits = append(fits, c)
			}
		}
		if len(fits) == 0 {
			labels["karpenter.sh/capacity-type"] = "on-demand"
			return
		}
		c := fits[g.r.Intn(len(fits))]
		labels["topology.kubernetes.io/zone"] = c.zone
		labels[labelReservationID] = c.id
		labels[labelReservationType] = c.rtype
		labels[labelReservationInterruptible] = fmt.Sprintf("%t", c.interruptible)
	}
	// About one existing node in eight is already deleting (its NodeClaim has a deletionTimestamp):
	// the provisioner provisions for its currently reschedulable pods, and the disruption
	// simulation re-places them beside the candidates' pods (tests/scenarios/c22). Drawn from a
	// stream of its own, so the rest of each scenario is what the seed drew before.
	del := rand.New(rand.NewSource(seed*7919 + map[string]int64{"reserved": 5, "rdisrupt": 6}[kind]))
	g.deletingHook = func() *time.Time {
		if del.Float64() >= 0.125 {
			return nil
		}
		t := g.now.Add(-time.Duration(1+del.Intn(30)) * time.Minute)
		return &t
	}
	g.existingNodes(disrupt, 2, 5)
	g.deletingHook = nil
	if disrupt {
		if g.chance(0.3) {
			g.workloads(1+g.r.Intn(2), "pending")
		}
	} else {
		g.workloads(1+g.r.Intn(7), "default")
		if g.chance(0.4) {
			g.reservedOnlyWorkload(crs)
		}
	}
	g.add(g.reservationDoc(crs))
	sc := g.scenario(kind, seed, map[bool]string{true: "disrupt", false: "provision"}[disrupt], catalog)
	sc["clock"] = map[string]any{"now": g.now.Format(time.RFC3339)}
	return marshalScenario(sc)
}

// reservations draws 1–6 reservations with their describe-capacity-reservations entries (written
// last, by reservationDoc). `active`: selectable at `now` (state active, not ended).
func (g *gen) reservations() []genCR {
	n := 1 + g.r.Intn(6)
	var out []genCR
	for i := 0; i < n; i++ {
		c := genCR{id: fmt.Sprintf("cr-0%015x", g.r.Int63n(1<<60)), typ: g.pick(reservedTypes...), zone: g.pick("us-east-1a", "us-east-1b", "us-east-1c")}
		if p := g.pools[g.r.Intn(len(g.pools))]; g.chance(0.7) {
			// Mostly a type some NodePool can launch, so reservations get used (and run out).
			c.typ = g.pick(p.types...)
		}
		if g.chance(0.08) {
			c.zone = "us-east-1d"
		}
		c.total = 1 + g.r.Intn(4)
		c.avail = 1 + g.r.Intn(c.total)
		if g.chance(0.25) {
			c.avail = 0 // exhausted
		}
		c.rtype = "default"
		if g.chance(0.4) {
			c.rtype = "capacity-block"
		}
		c.active = !g.chance(0.1)
		m := map[string]any{
			"CapacityReservationId": c.id, "OwnerId": g.pick(owners...), "InstanceType": c.typ, "InstancePlatform": "Linux/UNIX",
			"AvailabilityZone": c.zone, "Tenancy": "default", "TotalInstanceCount": c.total, "AvailableInstanceCount": c.avail,
			"EbsOptimized": true, "EphemeralStorage": false, "InstanceMatchCriteria": g.pick("targeted", "targeted", "open"),
		}
		m["State"] = "active"
		if !c.active {
			m["State"] = g.pick("expired", "cancelled", "pending", "payment-pending", "scheduled")
		}
		if c.rtype == "capacity-block" {
			m["ReservationType"] = "capacity-block"
			m["InstanceMatchCriteria"] = "targeted"
			// Ends between 5 min ago and 3 days from now; in its last 40 minutes a block is expiring (no longer offered);
			// now and then the end is already past with the state still active (Karpenter drops it).
			left := []time.Duration{-5 * time.Minute, 10 * time.Minute, 39 * time.Minute, 40 * time.Minute, 41 * time.Minute, 2 * time.Hour, 6 * time.Hour, 24 * time.Hour, 72 * time.Hour, 72 * time.Hour}[g.r.Intn(10)]
			m["StartDate"] = g.now.Add(-24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
			m["EndDate"] = g.now.Add(left).Format("2006-01-02T15:04:05.000Z")
			m["EndDateType"] = "limited"
			c.active = c.active && left > 40*time.Minute
		} else {
			m["ReservationType"] = "default"
			m["StartDate"] = g.now.Add(-72 * time.Hour).Format("2006-01-02T15:04:05+00:00")
			if g.chance(0.25) {
				left := []time.Duration{-time.Hour, 20 * time.Minute, 48 * time.Hour}[g.r.Intn(3)]
				m["EndDate"] = g.now.Add(left).Format("2006-01-02T15:04:05+00:00")
				m["EndDateType"] = "limited"
				c.active = c.active && left > 0
			} else {
				m["EndDateType"] = "unlimited"
			}
			if g.chance(0.1) {
				m["Interruptible"] = true
				c.interruptible = true
			}
		}
		if tags := crTags[g.r.Intn(len(crTags))]; tags != nil {
			m["Tags"] = tags
		}
		c.doc = m
		out = append(out, c)
	}
	return out
}

var crTags = [][]CRTag{{{Key: "team", Value: "ml"}}, {{Key: "team", Value: "web"}}, {{Key: "team", Value: "ml"}, {Key: "purpose", Value: "training"}}, {{Key: "purpose", Value: "inference"}}, nil}

func (g *gen) reservationDoc(crs []genCR) map[string]any {
	var list []any
	for _, c := range crs {
		list = append(list, c.doc)
	}
	return map[string]any{"CapacityReservations": list}
}

// nodeClasses writes the EC2NodeClasses (`default`, maybe `reserved-class`) with selector terms
// that pick some of the reservations.
func (g *gen) nodeClasses(names []string, crs []genCR) {
	for _, name := range names {
		var terms []any
		nTerms := 1 + g.r.Intn(3)
		if name == "default" && g.chance(0.15) {
			nTerms = 0 // no terms: nothing selected, even open ODCRs
		}
		for i := 0; i < nTerms; i++ {
			switch g.r.Intn(10) {
			case 0, 1, 2, 3:
				id := crs[g.r.Intn(len(crs))].id
				if g.chance(0.1) {
					id = "cr-0000000000000000"
				}
				terms = append(terms, map[string]any{"id": id})
			case 4, 5:
				terms = append(terms, map[string]any{"tags": map[string]any{"team": g.pick("ml", "web", "*")}})
			case 6:
				terms = append(terms, map[string]any{"tags": map[string]any{"purpose": g.pick("*", "training")}, "ownerID": g.pick(owners...)})
			case 7, 8:
				terms = append(terms, map[string]any{"instanceMatchCriteria": g.pick("targeted", "open")})
			default:
				terms = append(terms, map[string]any{"instanceMatchCriteria": "targeted", "ownerID": g.pick(owners...)})
			}
		}
		spec := map[string]any{"role": "KarpenterNodeRole", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}}}
		if len(terms) > 0 {
			spec["capacityReservationSelectorTerms"] = terms
		}
		g.add(map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": map[string]any{"name": name}, "spec": spec})
	}
}

// reservedPool writes a NodePool whose types include reserved ones and whose capacity types
// usually include `reserved`.
func (g *gen) reservedPool(i int, classes []string, disrupt bool) {
	gpu := i == 0 || g.chance(0.5)
	p := pool{name: poolName(gpu, i), gpu: gpu, nodeClass: g.pick(classes...)}
	chosen := g.families(&p)
	reqs := []any{req("kubernetes.io/arch", "In", "amd64")}
	if g.chance(0.7) {
		reqs = append(reqs, req("karpenter.k8s.aws/instance-family", "In", chosen...))
	} else if gpu {
		reqs = append(reqs, req("karpenter.k8s.aws/instance-category", "In", "g"))
	} else {
		reqs = append(reqs, req("karpenter.k8s.aws/instance-category", "In", "m", "c"))
	}
	switch g.r.Intn(6) {
	case 0:
		p.cts = []string{"reserved"}
	case 1, 2:
		p.cts = []string{"reserved", "on-demand"}
	case 3:
		p.cts = []string{"reserved", "spot", "on-demand"}
	case 4:
		p.cts = []string{"on-demand"}
	default:
		p.cts = nil // no capacity-type requirement: every capacity type of the types
	}
	if p.cts != nil {
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", p.cts...))
	}
	if g.chance(0.15) {
		reqs = append(reqs, req("topology.kubernetes.io/zone", "In", g.subset(g.zones, 1)...))
	}
	if g.chance(0.1) {
		reqs = append(reqs, req(labelReservationType, "In", g.pick("default", "capacity-block")))
	}
	spec := map[string]any{"requirements": reqs, "nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": p.nodeClass}}
	if gpu && g.chance(0.6) {
		p.taint = true
		spec["taints"] = []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}
	}
	s := map[string]any{"template": map[string]any{"spec": spec}}
	if g.chance(0.6) {
		s["weight"] = 1 + g.r.Intn(4)*10
	}
	if g.chance(0.4) {
		lim := map[string]any{"cpu": fmt.Sprint(16 + g.r.Intn(200))}
		if gpu {
			lim["nvidia.com/gpu"] = fmt.Sprint(2 + g.r.Intn(14))
		}
		s["limits"] = lim
	}
	if disrupt {
		d := map[string]any{"consolidationPolicy": g.pick("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty"), "consolidateAfter": g.pick("0s", "0s", "5m")}
		if g.chance(0.3) {
			d["budgets"] = []any{map[string]any{"nodes": g.pick("1", "50%", "100%")}}
		}
		s["disruption"] = d
	}
	if p.cts == nil {
		p.cts = []string{"reserved", "spot", "on-demand"}
	}
	g.add(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": p.name}, "spec": s})
	g.pools = append(g.pools, p)
}

// reservedOnlyWorkload: a Deployment that must land in reserved capacity (by capacity type, or by
// one reservation's id), so some of its replicas wait when the reservations run out.
func (g *gen) reservedOnlyWorkload(crs []genCR) {
	c := crs[g.r.Intn(len(crs))]
	sel := map[string]any{"karpenter.sh/capacity-type": "reserved"}
	if g.chance(0.3) {
		sel = map[string]any{labelReservationID: c.id}
	}
	reps := 1 + g.r.Intn(4)
	res := map[string]any{"cpu": g.pick("500m", "1", "2"), "memory": g.pick("1Gi", "2Gi")}
	if strings.HasPrefix(c.typ, "g") {
		res["nvidia.com/gpu"] = "1"
	}
	spec := map[string]any{"nodeSelector": sel, "containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{"requests": res}}},
		"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}}
	if g.chance(0.3) {
		spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"weight": 10,
			"preference": map[string]any{"matchExpressions": []any{req("topology.kubernetes.io/zone", "In", g.pick(g.zones...))}}}}}}
	}
	g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "app-90", "namespace": "default"}, "spec": map[string]any{"replicas": reps,
		"selector": map[string]any{"matchLabels": map[string]any{"app": "app-90"}}, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "app-90"}}, "spec": spec}}})
}

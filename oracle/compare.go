package main

// Comparing the two normalised answers and naming the kind of disagreement.

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// NodecastRecord is one line of `nodecast-conformance --oracle`.
type NodecastRecord struct {
	Record   string          `json:"record"`
	ID       int             `json:"id"`
	Catalog  json.RawMessage `json:"catalog"`
	Name     string          `json:"name"`
	File     string          `json:"file"`
	Kind     string          `json:"kind"`
	Nodecast json.RawMessage `json:"nodecast"`
	Error    string          `json:"error"`
	// nodecast's reserved offerings of the scenario, per instance type (its catalog line has none:
	// they depend on the scenario's reservations and clock).
	Reserved map[string][]CatalogOffering `json:"reserved"`
	// The scenario's on-demand and spot offerings of the types its price and offering documents
	// changed (issue 31; priced.go).
	Offerings map[string][]CatalogOffering `json:"offerings"`
	// The AWS provider's ResourceSlice templates per instance type under the scenario's settings
	// (DRANVIDIAGPU / DRAEFA with --ignore-dra-requests=false), as nodecast's allocator uses them.
	Dra map[string][]DraTemplate `json:"dra"`
	// The line as nodecast printed it (scenario records only): what `run -record` writes.
	Raw []byte `json:"-"`
}

func podSets(cs []Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strings.Join(c.Pods, ",")
	}
	slices.Sort(out)
	return out
}

// launchOK: is nodecast's launch one the AWS provider / EC2 can make for Karpenter's claim?
func launchOK(n Claim, k Claim) bool {
	if k.Launch == nil {
		return n.InstanceType == ""
	}
	if n.CapacityType != k.Launch.CapacityType {
		return false
	}
	zones, ok := k.Launch.Types[n.InstanceType]
	if !ok {
		return false
	}
	if !slices.Contains(zones, n.Zone) {
		return false
	}
	// A reserved launch goes into one reservation per (type, zone); any other launch into none.
	return n.ReservationID == k.Launch.Reservations[n.InstanceType+"/"+n.Zone]
}

// Replicas of one generated Deployment or Job (`<ns>/app-<i>-<replica>`, and the `buffer` and
// `static` generators' `buf-dep-<i>-<replica>` and `static-app-<replica>`) and the virtual pods
// of one generated CapacityBuffer (`capacity-buffer-buffer-<i>-<n>`) are identical pods; which
// replica lands where is not a decision, so they are compared as interchangeable.
var replica = regexp.MustCompile(`^([^/]+/(?:app-\d+|buf-dep-\d+|static-app|capacity-buffer-buffer-\d+))-\d+$`)

func canon(p string) string { return replica.ReplaceAllString(p, "$1-*") }

func canonical(a *ProvisionAnswer) *ProvisionAnswer {
	out := &ProvisionAnswer{Error: a.Error, Existing: map[string]string{}}
	for _, c := range a.Claims {
		c.Pods = slices.Clone(c.Pods)
		for i := range c.Pods {
			c.Pods[i] = canon(c.Pods[i])
		}
		slices.Sort(c.Pods)
		out.Claims = append(out.Claims, c)
	}
	sortClaims(out.Claims)
	for _, c := range a.Static {
		c.Pods = slices.Clone(c.Pods)
		for i := range c.Pods {
			c.Pods[i] = canon(c.Pods[i])
		}
		slices.Sort(c.Pods)
		out.Static = append(out.Static, c)
	}
	sortClaims(out.Static)
	var placed []string
	for p, n := range a.Existing {
		placed = append(placed, canon(p)+"@"+n)
	}
	slices.Sort(placed)
	for i, x := range placed {
		out.Existing[fmt.Sprint(i)] = x
	}
	for _, p := range a.Unschedulable {
		out.Unschedulable = append(out.Unschedulable, canon(p))
	}
	slices.Sort(out.Unschedulable)
	for _, p := range a.Deferred {
		out.Deferred = append(out.Deferred, canon(p))
	}
	slices.Sort(out.Deferred)
	return out
}

// CompareProvision returns "" when nodecast's answer is one Karpenter gave, else a class.
func CompareProvision(n, k *ProvisionAnswer) (string, string) {
	n, k = canonical(n), canonical(k)
	if n.Error != "" || k.Error != "" {
		return "error", fmt.Sprintf("nodecast error %q, karpenter error %q", n.Error, k.Error)
	}
	if !slices.Equal(n.Deferred, k.Deferred) {
		return "deferred pods differ (reserved capacity)", fmt.Sprintf("nodecast %v, karpenter %v", n.Deferred, k.Deferred)
	}
	if !slices.Equal(n.Unschedulable, k.Unschedulable) {
		return "unschedulable pods differ", fmt.Sprintf("nodecast %v, karpenter %v", n.Unschedulable, k.Unschedulable)
	}
	if !reflect.DeepEqual(nonNil(n.Existing), nonNil(k.Existing)) {
		return "existing-node placements differ", fmt.Sprintf("nodecast %v, karpenter %v", n.Existing, k.Existing)
	}
	if !slices.Equal(n.StaticDeleted, k.StaticDeleted) {
		return "static scale-down differs", fmt.Sprintf("nodecast %v, karpenter %v", n.StaticDeleted, k.StaticDeleted)
	}
	if c, d := compareStatic(n.Static, k.Static); c != "" {
		return c, d
	}
	if !slices.Equal(podSets(n.Claims), podSets(k.Claims)) {
		cls := "pods grouped into NodeClaims differently"
		if len(n.Claims) != len(k.Claims) {
			cls += " (different NodeClaim count)"
		} else if math.Abs(totalLaunch(n.Claims)-totalCheapest(k.Claims)) > 1e-6 {
			cls += " (same count, different $/h)"
		} else {
			cls += " (same count and $/h)"
		}
		return cls, fmt.Sprintf("nodecast %d claims, karpenter %d", len(n.Claims), len(k.Claims))
	}
	// Claims holding the same (canonical) pods are interchangeable: several replicas of one
	// Deployment, each alone on a NodeClaim, can be paired either way. The answers agree when some
	// pairing of equal pod sets matches every claim, so the checks below look for a perfect matching
	// under ever stricter conditions and report the first condition that has none.
	sameAll := func(nc, kc Claim) bool {
		return nc.NodePool == kc.NodePool && slices.Equal(nc.Options, kc.Options) && launchOK(nc, kc)
	}
	if _, ok := matchClaims(n.Claims, k.Claims, sameAll); ok {
		return "", ""
	}
	samePool := func(nc, kc Claim) bool { return nc.NodePool == kc.NodePool }
	if i, ok := matchClaims(n.Claims, k.Claims, samePool); !ok {
		nc := n.Claims[i]
		return "NodePool of a NodeClaim differs", fmt.Sprintf("%v: nodecast %s, karpenter %s", nc.Pods, nc.NodePool, poolsOf(k.Claims, nc.Pods))
	}
	sameOpts := func(nc, kc Claim) bool { return samePool(nc, kc) && slices.Equal(nc.Options, kc.Options) }
	if i, ok := matchClaims(n.Claims, k.Claims, sameOpts); !ok {
		nc := n.Claims[i]
		for _, kc := range k.Claims {
			if samePool(nc, kc) && slices.Equal(nc.Pods, kc.Pods) {
				return "instance-type options differ", fmt.Sprintf("%v: %s", nc.Pods, optionDiff(nc.Options, kc.Options))
			}
		}
		return "instance-type options differ", fmt.Sprintf("%v", nc.Pods)
	}
	i, _ := matchClaims(n.Claims, k.Claims, sameAll)
	nc := n.Claims[i]
	var may []string
	for _, kc := range k.Claims {
		if slices.Equal(nc.Pods, kc.Pods) && kc.Launch != nil {
			may = append(may, fmt.Sprintf("%s %v", kc.Launch.CapacityType, kc.Launch.Types))
		}
	}
	for _, kc := range k.Claims {
		if slices.Equal(nc.Pods, kc.Pods) && kc.Launch != nil && len(kc.Launch.Reservations) > 0 {
			may = append(may, fmt.Sprintf("reservations %v", kc.Launch.Reservations))
		}
	}
	cls := "launched offering differs"
	if nc.CapacityType == "reserved" || nc.ReservationID != "" || strings.Contains(strings.Join(may, " "), "reserved") {
		cls = "launched offering differs (reserved capacity)"
	}
	return cls, fmt.Sprintf("%v: nodecast %s %s %s %s, karpenter may launch %s", nc.Pods, nc.CapacityType, nc.InstanceType, nc.Zone, nc.ReservationID, strings.Join(may, " | "))
}

// matchClaims pairs every nodecast claim with a distinct Karpenter claim holding the same pods for
// which ok holds (augmenting paths; the groups of equal pod sets are small). It returns whether a
// perfect pairing exists and, if not, a nodecast claim left unpaired.
func matchClaims(n, k []Claim, ok func(nc, kc Claim) bool) (int, bool) {
	owner := make([]int, len(k))
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range k {
			if seen[j] || !slices.Equal(n[i].Pods, k[j].Pods) || !ok(n[i], k[j]) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range n {
		if !try(i, make([]bool, len(k))) {
			return i, false
		}
	}
	return -1, true
}

func poolsOf(cs []Claim, pods []string) []string {
	var out []string
	for _, c := range cs {
		if slices.Equal(c.Pods, pods) {
			out = append(out, c.NodePool)
		}
	}
	return out
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func totalLaunch(cs []Claim) float64 {
	t := 0.0
	for _, c := range cs {
		t += c.Price
	}
	return t
}

func totalCheapest(cs []Claim) float64 {
	t := 0.0
	for _, c := range cs {
		if c.Launch != nil {
			t += c.Launch.Cheapest
		}
	}
	return t
}

func optionDiff(n, k []string) string {
	var onlyN, onlyK []string
	for _, x := range n {
		if !slices.Contains(k, x) {
			onlyN = append(onlyN, x)
		}
	}
	for _, x := range k {
		if !slices.Contains(n, x) {
			onlyK = append(onlyK, x)
		}
	}
	return fmt.Sprintf("only nodecast %v, only karpenter %v", trunc(onlyN), trunc(onlyK))
}

func trunc(xs []string) []string {
	if len(xs) > 6 {
		return append(xs[:6:6], fmt.Sprintf("…+%d", len(xs)-6))
	}
	return xs
}

// CompareDisrupt returns "" when nodecast's decision is one Karpenter made, else a class.
func CompareDisrupt(n, k *DisruptAnswer) (string, string) {
	if n.Error != "" || k.Error != "" {
		return "error", fmt.Sprintf("nodecast error %q, karpenter error %q", n.Error, k.Error)
	}
	detail := fmt.Sprintf("nodecast %s %s %v, karpenter %s %s %v (%s)", n.Decision, n.Reason, n.Nodes, k.Decision, k.Reason, k.Nodes, k.Method)
	if n.Decision != k.Decision {
		return fmt.Sprintf("decision differs (nodecast %s, karpenter %s)", n.Decision, k.Decision), detail
	}
	if n.Decision == "none" {
		return "", ""
	}
	if n.Reason != k.Reason {
		return fmt.Sprintf("reason differs (nodecast %s, karpenter %s)", n.Reason, k.Reason), detail
	}
	if !slices.Equal(n.Nodes, k.Nodes) {
		cls := "disrupted nodes differ"
		if len(n.Nodes) == len(k.Nodes) {
			cls += " (same count)"
		}
		return cls + " [" + n.Reason + "]", detail
	}
	if (n.Replacement == nil) != (k.Replacement == nil) {
		return "replacement presence differs", detail
	}
	if n.Replacements != k.Replacements {
		return fmt.Sprintf("replacement count differs (nodecast %d, karpenter %d)", n.Replacements, k.Replacements), detail
	}
	// Several replacements come in each side's own claim order: their options are not compared.
	if n.Replacement != nil && n.Replacements <= 1 {
		// A static pool's replacement is its bare template: no options on Karpenter's side.
		if !k.Replacement.Static && !slices.Equal(n.Replacement.Options, k.Replacement.Options) {
			return "replacement options differ", optionDiff(n.Replacement.Options, k.Replacement.Options)
		}
		if !launchOK(*n.Replacement, *k.Replacement) {
			return "replacement launch differs", fmt.Sprintf("nodecast %s %s %s, karpenter %+v", n.Replacement.CapacityType, n.Replacement.InstanceType, n.Replacement.Zone, k.Replacement.Launch)
		}
	}
	return "", ""
}

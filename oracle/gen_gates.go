package main

// Generated scenarios for Karpenter's NodeOverlay gate and DRA flag (issue 28): a provision
// scenario of the ordinary generator plus NodeOverlays (capacity for time-slicing and MIG,
// prices and price adjustments, several weights, sometimes tied to make conflicts) and, in some,
// pods and DaemonSets with resource claims. Half run with NodeOverlay=true, half with the gate
// off (Karpenter's default), so both sides of the gate are compared.

import (
	"fmt"
	"math/rand"
	"time"
)

// GenerateGates is `oracle gen -kind gates`.
func GenerateGates(seed int64) (string, error) {
	if err := loadAWS(); err != nil {
		return "", err
	}
	g := &gen{r: rand.New(rand.NewSource(seed*7919 + 3)), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	g.zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	nPools := 1 + g.r.Intn(2)
	for i := 0; i < nPools; i++ {
		g.nodePool(i, false)
	}
	g.daemonSets()
	g.workloads(1+g.r.Intn(6), "default")
	nOverlays := 1 + g.r.Intn(4)
	for i := 0; i < nOverlays; i++ {
		g.overlay(i)
	}
	if g.chance(0.3) {
		g.draPod()
	}
	if g.chance(0.3) {
		g.sharedGPUPods()
	}
	on := seed%2 == 0
	sc := g.scenario("gates", seed, "provision", "aws-us-east-1")
	sc["settings"] = map[string]any{"featureGates": fmt.Sprintf("NodeOverlay=%t", on)}
	return marshalScenario(sc)
}

// overlay adds one NodeOverlay: requirements on instance-type labels (never on NodePools, which
// nodecast refuses when they make overlays act per NodePool), and a capacity, a price or an
// adjustment.
func (g *gen) overlay(i int) {
	var reqs []any
	switch g.r.Intn(5) {
	case 0:
		reqs = append(reqs, req("karpenter.k8s.aws/instance-family", "In", g.subset([]string{"g5", "g6", "p4d", "p5", "m5", "c6a", "m6a", "r6i"}, 1)...))
	case 1:
		reqs = append(reqs, req("karpenter.k8s.aws/instance-gpu-count", "In", g.pick("1", "4", "8")))
	case 2:
		reqs = append(reqs, req("node.kubernetes.io/instance-type", "In", g.subset([]string{"g5.xlarge", "g5.2xlarge", "g6.xlarge", "m5.large", "m5.xlarge", "c6a.large", "c6a.xlarge", "p5.48xlarge"}, 1)...))
	case 3:
		reqs = append(reqs, req("karpenter.k8s.aws/instance-cpu", g.pick("Gt", "Lt", "Gte", "Lte"), g.pick("2", "4", "8", "16")))
	}
	if g.chance(0.3) {
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", g.pick("spot", "on-demand")))
	}
	if g.chance(0.2) {
		reqs = append(reqs, req("topology.kubernetes.io/zone", "In", g.pick(g.zones...)))
	}
	if reqs == nil {
		reqs = []any{}
	}
	spec := map[string]any{"requirements": reqs}
	switch g.r.Intn(4) {
	case 0:
		spec["capacity"] = map[string]any{g.pick("nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "example.com/fpga"): g.pick("2", "4", "8", "56")}
	case 1:
		spec["price"] = g.pick("0.01", "0.05", "0.2", "1.5", "3")
	default:
		spec["priceAdjustment"] = g.pick("-50%", "+20%", "-0.01", "+0.5", "-100%", "-15%")
	}
	// Few weights, so ties (and conflicts) happen.
	if g.chance(0.7) {
		spec["weight"] = 1 + g.r.Intn(3)*10
	}
	g.add(map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": map[string]any{"name": fmt.Sprintf("overlay-%d", i)}, "spec": spec})
}

// draPod adds a pod that references a resource claim (refused while --ignore-dra-requests).
func (g *gen) draPod() {
	g.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "dra-0", "namespace": "default"},
		"spec": map[string]any{
			"resourceClaims": []any{map[string]any{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}},
			"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
				"requests": map[string]any{"cpu": "1", "memory": "1Gi"}, "claims": []any{map[string]any{"name": "gpu"}}}}},
		}})
}

// sharedGPUPods adds replicas asking a resource only overlays declare (MIG or a custom device).
func (g *gen) sharedGPUPods() {
	res := g.pick("nvidia.com/mig-1g.10gb", "example.com/fpga")
	n := 1 + g.r.Intn(4)
	g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "shared", "namespace": "default"},
		"spec": map[string]any{"replicas": n, "selector": map[string]any{"matchLabels": map[string]any{"app": "shared"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "shared"}}, "spec": map[string]any{
				"tolerations": []any{map[string]any{"operator": "Exists"}},
				"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
					"requests": map[string]any{"cpu": "500m", "memory": "1Gi", res: "1"}, "limits": map[string]any{res: "1"}}}}}}}})
}

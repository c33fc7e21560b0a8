package main

// Generated DRA scenarios (issue 28): pods asking devices through resource claims, run through
// Karpenter's real scheduler and DRA allocator (dra.go). Settings: `--ignore-dra-requests` both
// ways (true: Karpenter refuses every claim-bearing pod; false: its allocator), the AWS
// provider's DRANVIDIAGPU and DRAEFA gates (the devices a new node offers). Objects: DeviceClasses
// with CEL selectors on driver, product name and memory; ResourceClaimTemplates (count 1 or 2,
// allocationMode All, request selectors); shared ResourceClaims named by several pods; bare pods,
// Deployments and Jobs holding those claims, next to ordinary workloads. Own seed stream, so the
// other kinds are unchanged.

import (
	"fmt"
	"math/rand"
	"time"
)

// draClass is one generated DeviceClass: its name and CEL selector.
var draClasses = []struct{ name, cel string }{
	{"gpu.nvidia.com", `device.driver == "gpu.nvidia.com"`},
	{"a10g-or-l4", `device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].productName in ["NVIDIA A10G", "NVIDIA L4"]`},
	{"gpu-40gi", `device.driver == "gpu.nvidia.com" && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`},
	{"efa", `device.driver == "dra.net"`},
}

// GenerateDRA is `oracle gen -kind dra`.
func GenerateDRA(seed int64) (string, error) {
	if err := loadAWS(); err != nil {
		return "", err
	}
	g := &gen{r: rand.New(rand.NewSource(seed*104729 + 11)), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	g.zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	nPools := 1 + g.r.Intn(2)
	for i := 0; i < nPools; i++ {
		g.nodePool(i, false)
	}
	g.daemonSets()
	if g.chance(0.5) {
		g.workloads(1+g.r.Intn(3), "default")
	}
	// Classes: always the plain NVIDIA one, each other with some chance.
	classes := []int{0}
	for i := 1; i < len(draClasses); i++ {
		if g.chance(0.5) {
			classes = append(classes, i)
		}
	}
	for _, i := range classes {
		g.add(map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]any{"name": draClasses[i].name},
			"spec": map[string]any{"selectors": []any{map[string]any{"cel": map[string]any{"expression": draClasses[i].cel}}}}})
	}
	className := func() string { return draClasses[classes[g.r.Intn(len(classes))]].name }
	// Templates: 1-3, each one request.
	nTemplates := 1 + g.r.Intn(3)
	for i := 0; i < nTemplates; i++ {
		g.add(map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": map[string]any{"name": fmt.Sprintf("claim-%d", i), "namespace": "default"},
			"spec":     map[string]any{"spec": map[string]any{"devices": map[string]any{"requests": []any{g.draRequest(className())}}}}})
	}
	// Shared claims named by several pods (the first pod's allocation pins the others).
	nShared := 0
	if g.chance(0.3) {
		nShared = 1
		g.add(map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": map[string]any{"name": "shared-0", "namespace": "default"},
			"spec": map[string]any{"devices": map[string]any{"requests": []any{g.draRequest(className())}}}})
	}
	nWorkloads := 1 + g.r.Intn(4)
	for i := 0; i < nWorkloads; i++ {
		g.draWorkload(i, nTemplates, nShared)
	}
	// Existing GPU nodes whose driver published their devices, some held by a bound pod's claim:
	// drawn from a second stream, so the objects above are what they were before nodes came in.
	g2 := &gen{r: rand.New(rand.NewSource(seed*104729 + 23)), now: g.now, zones: g.zones, docs: g.docs}
	// A third stream (the two above draw what they drew before): pending pods sharing a holder's
	// claim allocated in the input, and a DaemonSet whose pods reference a claim template.
	g3 := &gen{r: rand.New(rand.NewSource(seed*104729 + 29)), now: g.now, zones: g.zones}
	g2.draExistingNodes(g.pools, g3)
	g.docs = append(g2.docs, g3.docs...)
	if g3.chance(0.3) {
		g3.docs = nil
		g3.draDaemonSet(nTemplates)
		g.docs = append(g.docs, g3.docs...)
	}
	sc := g.scenario("dra", seed, "provision", "aws-us-east-1")
	settings := map[string]any{}
	if g.chance(0.75) {
		settings["ignoreDraRequests"] = false
		switch g.r.Intn(5) {
		case 0:
			// No provider gate: no new node offers devices.
		case 1:
			settings["awsFeatureGates"] = "DRANVIDIAGPU=true,DRAEFA=true"
		default:
			settings["awsFeatureGates"] = "DRANVIDIAGPU=true"
		}
	} else if g.chance(0.5) {
		settings["ignoreDraRequests"] = true
	}
	if len(settings) > 0 {
		sc["settings"] = settings
	}
	return marshalScenario(sc)
}

// draRequest is one `exactly` request of a claim: a class, a count (or All) and sometimes a
// selector of its own.
func (g *gen) draRequest(class string) map[string]any {
	ex := map[string]any{"deviceClassName": class}
	switch g.r.Intn(6) {
	case 0:
		ex["count"] = 2
	case 1:
		if class != "efa" {
			ex["allocationMode"] = "All"
		}
	}
	if g.chance(0.25) && class != "efa" {
		ex["selectors"] = []any{map[string]any{"cel": map[string]any{"expression": g.pick(
			`device.attributes["gpu.nvidia.com"].productName != "Tesla T4"`,
			`device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) > 0`,
			`device.attributes["gpu.nvidia.com"].architecture == "Ada Lovelace"`)}}}
	}
	return map[string]any{"name": "dev", "exactly": ex}
}

// draWorkload is a bare pod, a Deployment or a Job whose pods hold a template claim (one claim per
// pod) or the shared claim, tolerating the GPU taint.
func (g *gen) draWorkload(i, nTemplates, nShared int) {
	app := fmt.Sprintf("dra-%d", i)
	claim := map[string]any{"name": "dev"}
	if nShared > 0 && g.chance(0.4) {
		claim["resourceClaimName"] = "shared-0"
	} else {
		claim["resourceClaimTemplateName"] = fmt.Sprintf("claim-%d", g.r.Intn(nTemplates))
	}
	res := map[string]any{"requests": map[string]any{"cpu": g.pick("500m", "1", "2"), "memory": g.pick("1Gi", "4Gi", "8Gi")}, "claims": []any{map[string]any{"name": "dev"}}}
	spec := map[string]any{"resourceClaims": []any{claim},
		"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
		"containers":  []any{map[string]any{"name": "c", "image": "x", "resources": res}}}
	if g.chance(0.15) {
		spec["nodeSelector"] = map[string]any{"karpenter.sh/capacity-type": g.pick("on-demand", "spot")}
	}
	labels := map[string]any{"app": app}
	switch g.r.Intn(3) {
	case 0:
		g.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": app, "namespace": "default", "labels": labels}, "spec": spec})
	case 1:
		g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": app, "namespace": "default"},
			"spec": map[string]any{"replicas": 1 + g.r.Intn(3), "selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}})
	default:
		spec["restartPolicy"] = "Never"
		g.add(map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": app, "namespace": "default"},
			"spec": map[string]any{"parallelism": 1 + g.r.Intn(3), "template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}})
	}
}

// draNodeTypes: GPU types for existing nodes, with what the NVIDIA driver publishes per GPU.
var draNodeTypes = []struct {
	name, product, arch, memory string
	gpus                        int
}{
	{"g5.xlarge", "NVIDIA A10G", "Ampere", "23028Mi", 1},
	{"g5.12xlarge", "NVIDIA A10G", "Ampere", "23028Mi", 4},
	{"g6.xlarge", "NVIDIA L4", "Ada Lovelace", "23034Mi", 1},
	{"g4dn.12xlarge", "Tesla T4", "Turing", "15Gi", 4},
}

// draExistingNodes adds 0-2 initialized GPU nodes of the first NodePool, each with the
// ResourceSlice its NVIDIA driver publishes (nodeName, a Node owner reference as the kubelet
// plugin writes it, one device per GPU), and sometimes a bound pod holding one of the node's GPUs
// through an allocated ResourceClaim reserved for it.
//
// `sharers` (its own stream) adds, for some holders, pending pods that share the holder's
// allocated claim: Karpenter reads no topology from its `matchFields` node selector, so they
// are not pinned to the holder's node (docs/karpenter-fidelity.md, DRA allocator).
func (g *gen) draExistingNodes(pools []pool, sharers *gen) {
	if len(pools) == 0 {
		return
	}
	p := pools[0]
	n := g.r.Intn(3)
	for i := 0; i < n; i++ {
		t := draNodeTypes[g.r.Intn(len(draNodeTypes))]
		at := awsTypes[t.name]
		if at == nil {
			continue
		}
		name := fmt.Sprintf("gpu-node-%d", i)
		labels := map[string]any{}
		for k, v := range at.Labels {
			labels[k] = v
		}
		labels["topology.kubernetes.io/zone"] = g.pick(g.zones...)
		labels["topology.kubernetes.io/region"] = "us-east-1"
		labels["karpenter.sh/capacity-type"] = "on-demand"
		labels["karpenter.sh/nodepool"] = p.name
		labels["kubernetes.io/hostname"] = name
		labels["karpenter.sh/initialized"] = "true"
		labels["karpenter.sh/registered"] = "true"
		node := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name, "labels": labels,
			"creationTimestamp": g.now.Add(-3 * time.Hour).Format(time.RFC3339)}, "status": map[string]any{"allocatable": at.Allocatable}}
		if p.taint {
			node["spec"] = map[string]any{"taints": []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}}
		}
		g.add(node)
		var devices []any
		for d := 0; d < t.gpus; d++ {
			devices = append(devices, map[string]any{"name": fmt.Sprintf("gpu-%d", d),
				"attributes": map[string]any{"productName": map[string]any{"string": t.product}, "architecture": map[string]any{"string": t.arch}},
				"capacity":   map[string]any{"memory": map[string]any{"value": t.memory}}})
		}
		g.add(map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": map[string]any{"name": name + "-gpu.nvidia.com", "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": name, "uid": name}}},
			"spec":     map[string]any{"driver": "gpu.nvidia.com", "nodeName": name, "pool": map[string]any{"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}})
		if !g.chance(0.5) {
			continue
		}
		// A running pod holding gpu-0 through its allocated claim.
		pod, uid := fmt.Sprintf("holder-%d", i), fmt.Sprintf("uid-holder-%d", i)
		g.add(map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": map[string]any{"name": pod + "-dev", "namespace": "default"},
			"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{"name": "dev", "exactly": map[string]any{"deviceClassName": "gpu.nvidia.com"}}}}},
			"status": map[string]any{
				"allocation": map[string]any{
					"devices": map[string]any{"results": []any{map[string]any{"request": "dev", "driver": "gpu.nvidia.com", "pool": name, "device": "gpu-0"}}},
					"nodeSelector": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchFields": []any{
						map[string]any{"key": "metadata.name", "operator": "In", "values": []any{name}}}}}}},
				"reservedFor": []any{map[string]any{"resource": "pods", "name": pod, "uid": uid}}}})
		g.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": pod, "namespace": "default", "uid": uid},
			"spec": map[string]any{"nodeName": name, "resourceClaims": []any{map[string]any{"name": "dev", "resourceClaimName": pod + "-dev"}},
				"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
				"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
					"requests": map[string]any{"cpu": "1", "memory": "2Gi"}, "claims": []any{map[string]any{"name": "dev"}}}}}}})
		if sharers == nil || !sharers.chance(0.6) {
			continue
		}
		for j := sharers.r.Intn(3); j >= 0; j-- {
			spec := map[string]any{"resourceClaims": []any{map[string]any{"name": "dev", "resourceClaimName": pod + "-dev"}},
				"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
				"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
					"requests": map[string]any{"cpu": sharers.pick("500m", "2", "6", "40"), "memory": "1Gi"}, "claims": []any{map[string]any{"name": "dev"}}}}}}
			if sharers.chance(0.3) {
				spec["nodeSelector"] = map[string]any{"topology.kubernetes.io/zone": sharers.pick(g.zones...)}
			}
			sharers.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": fmt.Sprintf("sharer-%d-%d", i, j), "namespace": "default"}, "spec": spec})
		}
	}
}

// draDaemonSet adds a DaemonSet whose pods hold a claim from one of the templates: Karpenter
// leaves such pods out of a node's DaemonSet overhead.
func (g *gen) draDaemonSet(nTemplates int) {
	g.add(map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": "dra-agent", "namespace": "default"}, "spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "dra-agent"}}, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "dra-agent"}},
			"spec": map[string]any{"tolerations": []any{map[string]any{"operator": "Exists"}},
				"resourceClaims": []any{map[string]any{"name": "dev", "resourceClaimTemplateName": fmt.Sprintf("claim-%d", g.r.Intn(nTemplates))}},
				"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
					"requests": map[string]any{"cpu": g.pick("500m", "1", "2"), "memory": "512Mi"}, "claims": []any{map[string]any{"name": "dev"}}}}}}}}})
}

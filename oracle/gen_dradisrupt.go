package main

// DRA disruption scenarios (issue 28): a random disruption scenario (Generate "disrupt") whose
// GPU nodes publish their devices (a ResourceSlice per node, as the NVIDIA DRA driver does) and
// whose GPU pods hold a GPU through an allocated ResourceClaim instead of a `nvidia.com/gpu`
// request. Karpenter v1.15's consolidation re-schedules a candidate's pods with the DRA
// allocator when `--ignore-dra-requests=false`: the pods it moves count as deleting, so a claim
// reserved only by them is allocated again where they go and its device is free
// (disruption/helpers.go SimulateScheduling, provisioning/dra.go gatherAllocatedDevices); with
// the default (true) its scheduler refuses every pod with claims, so a node running one cannot
// be consolidated. Own seed stream; the base scenario is `disrupt` of the same seed.

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// draProducts: what the NVIDIA DRA driver publishes per GPU, by the type's GPU name label.
var draProducts = map[string]struct{ product, arch string }{
	"a10g": {"NVIDIA A10G", "Ampere"},
	"l4":   {"NVIDIA L4", "Ada Lovelace"},
	"t4":   {"Tesla T4", "Turing"},
	"l40s": {"NVIDIA L40S", "Ada Lovelace"},
}

// GenerateDRADisrupt is `oracle gen -kind dradisrupt`.
func GenerateDRADisrupt(seed int64) (string, error) {
	sc, err := disruptScenario(seed)
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewSource(seed*104729 + 31))
	chance := func(p float64) bool { return r.Float64() < p }
	var docs []map[string]any
	for _, d := range strings.Split(sc["objects"].(string), "---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(d), &obj); err != nil {
			return "", err
		}
		if obj != nil {
			docs = append(docs, obj)
		}
	}
	var extra []map[string]any
	// Classes: the plain NVIDIA one (every generated claim names it), sometimes a product one.
	classes := []struct{ name, cel string }{draClasses[0]}
	if chance(0.5) {
		classes = append(classes, draClasses[1])
	}
	for _, c := range classes {
		extra = append(extra, map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]any{"name": c.name},
			"spec": map[string]any{"selectors": []any{map[string]any{"cel": map[string]any{"expression": c.cel}}}}})
	}
	// GPU nodes whose driver publishes their devices: name -> how many GPUs, next free index.
	type gpuNode struct{ gpus, next int }
	nodes := map[string]*gpuNode{}
	for _, obj := range docs {
		if obj["kind"] != "Node" {
			continue
		}
		meta := obj["metadata"].(map[string]any)
		name := fmt.Sprint(meta["name"])
		labels, _ := meta["labels"].(map[string]any)
		alloc, _ := sub(obj, "status")["allocatable"].(map[string]any)
		n, _ := strconv.Atoi(fmt.Sprint(alloc["nvidia.com/gpu"]))
		prod, ok := draProducts[fmt.Sprint(labels["karpenter.k8s.aws/instance-gpu-name"])]
		if n == 0 || !ok || !chance(0.85) {
			continue
		}
		mem := fmt.Sprint(labels["karpenter.k8s.aws/instance-gpu-memory"]) + "Mi"
		var devices []any
		for d := 0; d < n; d++ {
			devices = append(devices, map[string]any{"name": fmt.Sprintf("gpu-%d", d),
				"attributes": map[string]any{"productName": map[string]any{"string": prod.product}, "architecture": map[string]any{"string": prod.arch}},
				"capacity":   map[string]any{"memory": map[string]any{"value": mem}}})
		}
		extra = append(extra, map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": map[string]any{"name": name + "-gpu.nvidia.com", "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": name, "uid": name}}},
			"spec":     map[string]any{"driver": "gpu.nvidia.com", "nodeName": name, "pool": map[string]any{"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}})
		nodes[name] = &gpuNode{gpus: n}
	}
	// Bound GPU pods on those nodes: most take their GPU through an allocated claim instead of
	// the device plugin's resource; a claim is reserved for its pod (sometimes also for a second
	// pod of the node sharing it, sometimes for nobody: then its device is never free).
	claimed := map[string]string{} // node -> a claim of it, for sharers
	for _, obj := range docs {
		if obj["kind"] != "Pod" {
			continue
		}
		spec := sub(obj, "spec")
		node := fmt.Sprint(spec["nodeName"])
		gn := nodes[node]
		if gn == nil {
			continue
		}
		meta := obj["metadata"].(map[string]any)
		name := fmt.Sprint(meta["name"])
		ns := fmt.Sprint(meta["namespace"])
		uid := "uid-" + name
		c := spec["containers"].([]any)[0].(map[string]any)
		res := sub(c, "resources")
		req, _ := res["requests"].(map[string]any)
		if _, gpu := req["nvidia.com/gpu"]; gpu && gn.next < gn.gpus && chance(0.75) {
			delete(req, "nvidia.com/gpu")
			claim := name + "-dev"
			res["claims"] = []any{map[string]any{"name": "dev"}}
			spec["resourceClaims"] = []any{map[string]any{"name": "dev", "resourceClaimName": claim}}
			meta["uid"] = uid
			status := map[string]any{"allocation": map[string]any{
				"devices": map[string]any{"results": []any{map[string]any{"request": "dev", "driver": "gpu.nvidia.com", "pool": node, "device": fmt.Sprintf("gpu-%d", gn.next)}}},
				"nodeSelector": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchFields": []any{
					map[string]any{"key": "metadata.name", "operator": "In", "values": []any{node}}}}}}}}
			if !chance(0.1) {
				status["reservedFor"] = []any{map[string]any{"resource": "pods", "name": name, "uid": uid}}
			}
			gn.next++
			extra = append(extra, map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": map[string]any{"name": claim, "namespace": ns},
				"spec":   map[string]any{"devices": map[string]any{"requests": []any{map[string]any{"name": "dev", "exactly": map[string]any{"deviceClassName": classes[r.Intn(len(classes))].name}}}}},
				"status": status})
			claimed[node] = ns + "/" + claim
			continue
		}
		if _, gpu := req["nvidia.com/gpu"]; gpu {
			continue
		}
		// A pod without a GPU sharing the node's last claim (same namespace: a claim is namespaced).
		held := claimed[node]
		if held == "" || !strings.HasPrefix(held, ns+"/") || !chance(0.15) {
			continue
		}
		claim := strings.TrimPrefix(held, ns+"/")
		for _, e := range extra {
			if e["kind"] != "ResourceClaim" || e["metadata"].(map[string]any)["name"] != claim {
				continue
			}
			st := e["status"].(map[string]any)
			if rf, ok := st["reservedFor"].([]any); ok {
				st["reservedFor"] = append(rf, map[string]any{"resource": "pods", "name": name, "uid": uid})
			}
		}
		res["claims"] = []any{map[string]any{"name": "dev"}}
		spec["resourceClaims"] = []any{map[string]any{"name": "dev", "resourceClaimName": claim}}
		meta["uid"] = uid
	}
	// Sometimes a pending pod asking a GPU through a claim template: the simulation of every
	// candidate schedules it too.
	if chance(0.2) {
		extra = append(extra, map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": map[string]any{"name": "one-gpu", "namespace": "pending"},
			"spec":     map[string]any{"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{"name": "dev", "exactly": map[string]any{"deviceClassName": classes[r.Intn(len(classes))].name}}}}}}})
		extra = append(extra, map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "dra-pending", "namespace": "pending"},
			"spec": map[string]any{"resourceClaims": []any{map[string]any{"name": "dev", "resourceClaimTemplateName": "one-gpu"}},
				"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
				"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{
					"requests": map[string]any{"cpu": "500m", "memory": "1Gi"}, "claims": []any{map[string]any{"name": "dev"}}}}}}})
	}
	var out []string
	for _, d := range append(docs, extra...) {
		b, err := yaml.Marshal(d)
		if err != nil {
			return "", err
		}
		out = append(out, string(b))
	}
	sc["objects"] = strings.Join(out, "---\n")
	sc["name"] = fmt.Sprintf("dradisrupt-%d", seed)
	sc["description"] = fmt.Sprintf("generated by oracle gen -kind dradisrupt -seed %d", seed)
	settings, _ := sc["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
	}
	switch {
	case chance(0.65):
		settings["ignoreDraRequests"] = false
		if chance(0.5) {
			settings["awsFeatureGates"] = "DRANVIDIAGPU=true"
		}
	case chance(0.5):
		settings["ignoreDraRequests"] = true
	}
	if len(settings) > 0 {
		sc["settings"] = settings
	}
	return marshalScenario(sc)
}

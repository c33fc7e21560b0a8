package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// One GPU-like device on r.large, as nodecast's line gives the AWS provider's templates.
func oneDevice() map[string][]DraTemplate {
	var ts []DraTemplate
	s := `[{"driver": "gpu.nvidia.com", "pool": "gpus-r.large", "devices": [{"name": "gpu-0",
	  "attributes": {"productName": {"string": "NVIDIA A10G"}}, "capacity": {"memory": "23028Mi"}}]}]`
	if err := json.Unmarshal([]byte(s), &ts); err != nil {
		panic(err)
	}
	return map[string][]DraTemplate{"r.large": ts}
}

const draObjects = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n" +
	"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]}\n---\n" +
	// No count: the API server's default (1) must apply.
	"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: default}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}\n---\n"

func draPods(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: p%d, namespace: default}\nspec: {resourceClaims: [{name: g, resourceClaimTemplateName: one}], containers: [{name: c, image: x, resources: {requests: {cpu: 100m}, claims: [{name: g}]}}]}\n---\n", i)
	}
	return b.String()
}

func provisionDRA(t *testing.T, objects string, settings map[string]any, dra map[string][]DraTemplate) *ProvisionAnswer {
	t.Helper()
	cat := testCatalog()
	s := &Scenario{Name: "t", Kind: "provision", Objects: objects, Settings: settings}
	s.Clock.Now = selNow.Format(time.RFC3339)
	s.dra = dra
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

// Karpenter's DRA path as the harness drives it: the flag, the templates, the claim defaults and
// the claims generated per pod (each pod's own claim takes a device of its own).
func TestKarpenterDRA(t *testing.T) {
	off := map[string]any{"ignoreDraRequests": false}
	for _, c := range []struct {
		name     string
		pods     int
		settings map[string]any
		dra      map[string][]DraTemplate
		want     string
	}{
		{"--ignore-dra-requests (default): refused", 1, nil, oneDevice(), "claims= deferred= unschedulable=default/p0"},
		{"allocator, no template devices: no type can take the claim", 1, off, nil, "claims= deferred= unschedulable=default/p0"},
		{"allocator, one device per r.large: one NodeClaim", 1, off, oneDevice(), "claims=a:-:: deferred= unschedulable="},
		{"two pods, each with its own claim: one device each, two NodeClaims", 2, off, oneDevice(), "claims=a:-:: a:-:: deferred= unschedulable="},
	} {
		a := provisionDRA(t, draObjects+draPods(c.pods), c.settings, c.dra)
		for i := range a.Claims {
			a.Claims[i].Launch = nil
		}
		if got := summary(a); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestClaimDefaultsAndGeneratedClaims(t *testing.T) {
	s := &Scenario{Objects: draObjects + draPods(2) +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: bound, namespace: default}\nspec: {nodeName: n1, resourceClaims: [{name: g, resourceClaimTemplateName: one}], containers: [{name: c, image: x}]}\n---\n"}
	o, err := s.ParseObjects()
	if err != nil {
		t.Fatal(err)
	}
	if err := o.generateTemplateClaims(); err != nil {
		t.Fatal(err)
	}
	// Two pending pods, two claims; the bound pod's claim is the input's business.
	if len(o.ResourceClaims) != 2 || o.ResourceClaims[0].Name != "p0-g" || o.ResourceClaims[1].Name != "p1-g" {
		t.Fatalf("claims %v", o.ResourceClaims)
	}
	ex := o.ResourceClaims[0].Spec.Devices.Requests[0].Exactly
	if ex.AllocationMode != resourcev1.DeviceAllocationModeExactCount || ex.Count != 1 {
		t.Errorf("defaults: %+v", ex)
	}
	st := o.Pods[0].Status.ResourceClaimStatuses
	if len(st) != 1 || st[0].Name != "g" || *st[0].ResourceClaimName != "p0-g" {
		t.Errorf("status %+v", st)
	}
	all := &resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{AllocationMode: resourcev1.DeviceAllocationModeAll}}}}}
	defaultClaimSpec(all)
	if all.Devices.Requests[0].Exactly.Count != 0 {
		t.Error("allocationMode All takes no count")
	}
	bad := &Scenario{Objects: draPods(1)}
	o, _ = bad.ParseObjects()
	if err := o.generateTemplateClaims(); err == nil || !strings.Contains(err.Error(), `ResourceClaimTemplate "one"`) {
		t.Errorf("missing template: %v", err)
	}
}

// Karpenter's Repair method with the AWS provider's policies: Ready=False for 31 minutes is past
// the 30-minute toleration, 29 minutes is not; with the gate off nothing is repaired; a pool
// whose unhealthy nodes exceed 20 % of its nodes (rounded up) is not repaired at all.
func TestKarpenterRepair(t *testing.T) {
	unhealthy := func(name string, ago time.Duration) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  creationTimestamp: '2025-03-01T00:00:00Z'\n  labels: {karpenter.sh/nodepool: a, node.kubernetes.io/instance-type: r.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand}\n"+
			"status:\n  allocatable: {cpu: '2', memory: 8Gi, pods: '110'}\n  conditions: [{type: Ready, status: 'False', reason: KubeletNotReady, lastTransitionTime: '%s'}]\n---\n", name, selNow.Add(-ago).Format(time.RFC3339))
	}
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  disruption: {consolidateAfter: Never, budgets: [{nodes: '100%'}]}\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n"
	healthy := ""
	for i := 0; i < 5; i++ {
		healthy += node(fmt.Sprintf("h%d", i), "on-demand", "")
	}
	for _, c := range []struct {
		name, objects, gates, want string
	}{
		{"31 minutes: repaired", pool + healthy + unhealthy("u", 31*time.Minute), "NodeRepair=true", "unhealthy [u]"},
		{"29 minutes: not yet", pool + healthy + unhealthy("u", 29*time.Minute), "NodeRepair=true", "none []"},
		{"gate off", pool + healthy + unhealthy("u", 31*time.Minute), "NodeRepair=false", "none []"},
		// The threshold is 20 % of the pool's nodes rounded up, and the breaker trips above it:
		// one unhealthy of two is within ceil(0.4) = 1, two of two are not.
		{"one node of two unhealthy: within the threshold", pool + node("h0", "on-demand", "") + unhealthy("u", 31*time.Minute), "NodeRepair=true", "unhealthy [u]"},
		{"two of two unhealthy: the breaker", pool + unhealthy("u", 31*time.Minute) + unhealthy("v", 40*time.Minute), "NodeRepair=true", "none []"},
	} {
		cat := testCatalog()
		s := &Scenario{Name: "t", Kind: "disrupt", Objects: c.objects, Settings: map[string]any{"featureGates": c.gates}}
		s.Clock.Now = selNow.Format(time.RFC3339)
		env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
		if err != nil {
			t.Fatal(err)
		}
		a, err := env.Disrupt()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s %v", map[bool]string{true: a.Reason, false: "none"}[a.Decision != "none"], a.Nodes); got != c.want {
			t.Errorf("%s: got %q (%s), want %q", c.name, got, a.Decision, c.want)
		}
	}
}

// Consolidation of a node whose pod holds a GPU through an allocated claim, with the allocator
// on and no free device anywhere else: Karpenter frees a claim reserved only by the pods it
// moves, so the moved pod needs a device again and node a stays. That needs the claim's
// reservedFor UID to be the UID the harness gives the pod (dra.go createDRA); a claim reserved
// by nobody keeps its device and pins nothing, so the pod moves to b and a is deleted.
func TestKarpenterDRAConsolidation(t *testing.T) {
	nodeDoc := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  creationTimestamp: '2025-03-01T00:00:00Z'\n  labels: {karpenter.sh/nodepool: a, node.kubernetes.io/instance-type: r.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand}\nstatus: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n---\n", name)
	}
	objects := func(reservedFor string) string {
		return draObjects + nodeDoc("a") + nodeDoc("b") +
			"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: a-gpu}\nspec: {driver: gpu.nvidia.com, nodeName: a, pool: {name: a, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}\n---\n" +
			"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: pa-g, namespace: default}\nspec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}\n" +
			"status:\n  allocation: {devices: {results: [{request: g, driver: gpu.nvidia.com, pool: a, device: gpu-0}]}, nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [a]}]}]}}\n" + reservedFor + "---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: pa, namespace: default, uid: uid-pa}\nspec: {nodeName: a, resourceClaims: [{name: g, resourceClaimName: pa-g}], containers: [{name: c, image: x, resources: {requests: {cpu: 100m}, claims: [{name: g}]}}]}\n---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: pb, namespace: default, annotations: {karpenter.sh/do-not-disrupt: 'true'}}\nspec: {nodeName: b, containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}\n---\n"
	}
	for _, c := range []struct{ name, reservedFor, want string }{
		{"reserved for the moved pod: freed, no device elsewhere", "  reservedFor: [{resource: pods, name: pa, uid: uid-pa}]\n", "none []"},
		{"reserved for nobody: kept, pins nothing", "", "delete [a]"},
	} {
		cat := testCatalog()
		s := &Scenario{Name: "t", Kind: "disrupt", Objects: objects(c.reservedFor), Settings: map[string]any{"ignoreDraRequests": false}}
		s.Clock.Now = selNow.Format(time.RFC3339)
		env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
		if err != nil {
			t.Fatal(err)
		}
		a, err := env.Disrupt()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s %v", a.Decision, a.Nodes); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// Karpenter v1.15.0's allocator panics when two pods moved off a candidate share a claim
// reserved only by them: the first pod re-allocates it and commits, the second classifies it as
// released again (allocator.go ClassifyClaims) and its commit finds the claim already allocated
// ("attempted to commit claim which was already allocated", allocation.Commit). The operator's
// controller-runtime recovers the panic and retries, so no disruption decision is made; the
// harness reports such a scenario as excluded (recoverKarpenter), not as an answer.
func TestKarpenterDRASharedClaimPanics(t *testing.T) {
	nodeDoc := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  creationTimestamp: '2025-03-01T00:00:00Z'\n  labels: {karpenter.sh/nodepool: a, node.kubernetes.io/instance-type: r.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand}\nstatus: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n---\n"+
			"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-gpu}\nspec: {driver: gpu.nvidia.com, nodeName: %s, pool: {name: %s, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}, {name: gpu-1}]}\n---\n", name, name, name, name)
	}
	pod := func(name, node, claim string, cpu string, ann string) string {
		claims, refs := "", ""
		if claim != "" {
			claims, refs = fmt.Sprintf(", resourceClaims: [{name: g, resourceClaimName: %s}]", claim), ", claims: [{name: g}]"
		}
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, uid: uid-%s%s}\nspec: {nodeName: %s%s, containers: [{name: c, image: x, resources: {requests: {cpu: %s}%s}}]}\n---\n", name, name, ann, node, claims, cpu, refs)
	}
	objects := draObjects + nodeDoc("a") + nodeDoc("b") +
		"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: shared, namespace: default}\nspec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}\n" +
		"status:\n  allocation: {devices: {results: [{request: g, driver: gpu.nvidia.com, pool: a, device: gpu-0}]}, nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [a]}]}]}}\n" +
		"  reservedFor: [{resource: pods, name: p1, uid: uid-p1}, {resource: pods, name: p2, uid: uid-p2}]\n---\n" +
		pod("p1", "a", "shared", "100m", "") + pod("p2", "a", "shared", "100m", "") +
		pod("pb", "b", "", "1", ", annotations: {karpenter.sh/do-not-disrupt: 'true'}")
	cat := testCatalog()
	s := &Scenario{Name: "t", Kind: "disrupt", Objects: objects, Settings: map[string]any{"ignoreDraRequests": false}}
	s.Clock.Now = selNow.Format(time.RFC3339)
	env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
	if err != nil {
		t.Fatal(err)
	}
	_, err = recoverKarpenter(func() (any, error) { return env.Disrupt() })
	var kp *karpenterPanic
	if !errors.As(err, &kp) || !strings.Contains(kp.msg, "already allocated") {
		t.Fatalf("want Karpenter's allocator panic, got %v", err)
	}
}

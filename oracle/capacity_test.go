package main

import (
	"fmt"
	"testing"
	"time"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

func provisionGated(t *testing.T, objects string, gates string, static []Claim) *ProvisionAnswer {
	t.Helper()
	cat := testCatalog()
	s := &Scenario{Name: "t", Kind: "provision", Objects: objects, Settings: map[string]any{"featureGates": gates}}
	s.Clock.Now = selNow.Format(time.RFC3339)
	env, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Provision(static)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Karpenter's static provisioning controller as the harness drives it: replicas against
// limits.nodes, the launch, pending pods on the in-flight static NodeClaims, the gate off.
func TestKarpenterStatic(t *testing.T) {
	pool := func(replicas int, limit string) string {
		return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: fixed}\nspec:\n  replicas: %d\n%s  template:\n    metadata: {labels: {team: fixed}}\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n", replicas, limit)
	}
	// A dynamic pool too: with no pool dynamic provisioning may use, Karpenter's pass does not
	// run at all (NewScheduler: no NodePools), so no pod would go onto the static NodeClaims.
	dynamic := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: other}\nspec:\n  template:\n    metadata: {labels: {team: other}}\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n"
	pod := dynamic + "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {nodeSelector: {team: fixed}, containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}\n---\n"
	for _, c := range []struct {
		name, objects, gates  string
		static, unschedulable int
	}{
		{"three replicas, the pod on one", pool(3, "") + pod, "StaticCapacity=true", 3, 0},
		{"limits.nodes caps them", pool(3, "  limits: {nodes: \"2\"}\n") + pod, "StaticCapacity=true", 2, 0},
		{"zero replicas", pool(0, "") + pod, "StaticCapacity=true", 0, 1},
		{"gate off: none, and no dynamic use", pool(3, "") + pod, "StaticCapacity=false", 0, 1},
	} {
		a := provisionGated(t, c.objects, c.gates, nil)
		if len(a.Static) != c.static || len(a.Unschedulable) != c.unschedulable || len(a.Claims) != 0 {
			t.Errorf("%s: %d static, %d unschedulable, %d new: %+v", c.name, len(a.Static), len(a.Unschedulable), len(a.Claims), a)
			continue
		}
		placed := 0
		for _, s := range a.Static {
			placed += len(s.Pods)
			if s.InstanceType != "r.large" || s.Launch == nil {
				t.Errorf("%s: static launch %+v", c.name, s)
			}
		}
		if placed != 1-c.unschedulable {
			t.Errorf("%s: %d pods on static NodeClaims", c.name, placed)
		}
	}
}

// Karpenter's capacitybuffer controller and virtual pods as the harness drives them.
func TestKarpenterBuffers(t *testing.T) {
	base := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n" +
		"apiVersion: v1\nkind: PodTemplate\nmetadata: {name: warm, namespace: default}\ntemplate: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}}\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 4, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]}}}\n---\n"
	buffer := func(spec string) string {
		return "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: b, namespace: default, uid: u}\nspec: " + spec + "\n---\n"
	}
	virtual := func(a *ProvisionAnswer) int {
		n := 0
		for _, c := range a.Claims {
			for _, p := range c.Pods {
				if len(p) > len("default/capacity-buffer-b-") && p[:len("default/capacity-buffer-b-")] == "default/capacity-buffer-b-" {
					n++
				}
			}
		}
		return n
	}
	for _, c := range []struct {
		name, spec, gates string
		want              int
	}{
		{"template, 2 replicas", "{podTemplateRef: {name: warm}, replicas: 2}", "CapacityBuffer=true", 2},
		{"template, limits only: floor(4 / 1.5)", "{podTemplateRef: {name: warm}, limits: {cpu: \"4\"}}", "CapacityBuffer=true", 2},
		{"deployment, 50 % of 4, at least replicas 1", "{scalableRef: {apiGroup: apps, kind: Deployment, name: web}, percentage: 50, replicas: 1}", "CapacityBuffer=true", 2},
		{"missing template: not ready", "{podTemplateRef: {name: nope}, replicas: 2}", "CapacityBuffer=true", 0},
		{"gate off", "{podTemplateRef: {name: warm}, replicas: 2}", "CapacityBuffer=false", 0},
	} {
		a := provisionGated(t, base+buffer(c.spec), c.gates, nil)
		if got := virtual(a); got != c.want {
			t.Errorf("%s: %d virtual pods placed, want %d: %+v", c.name, got, c.want, a)
		}
	}
}

// Identical pods of the generators compare as interchangeable.
func TestCanonicalReplicas(t *testing.T) {
	for in, want := range map[string]string{
		"default/capacity-buffer-buffer-1-12": "default/capacity-buffer-buffer-1-*",
		"default/buf-dep-0-3":                 "default/buf-dep-0-*",
		"default/static-app-2":                "default/static-app-*",
		"default/app-3-0":                     "default/app-3-*",
		"default/holder-0":                    "default/holder-0",
	} {
		if got := canon(in); got != want {
			t.Errorf("canon(%q) = %q, want %q", in, got, want)
		}
	}
}

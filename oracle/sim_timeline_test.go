package main

import (
	"encoding/json"
	"testing"

	"github.com/nodecast/nodecast/oracle/controller"
)

func fp(f float64) *float64 { return &f }

// A small recorded timeline: one NodePool, a DaemonSet, two first-wave pods, a second-wave pod
// of the same name in another namespace, one pod deleted in the disruption phase, the freeze and
// the opening of the budgets, two NodeClaims started in 0.6 s and 1.4 s.
func smallTimeline() *simTimeline {
	pod := func(ns, name string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": ns},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{"cpu": "1"}}}}}})
		return b
	}
	return &simTimeline{
		Name:    "ctl-7",
		Catalog: map[string]any{"source": "aws-us-east-1", "unavailable": []any{map[string]any{"capacityType": "spot"}}},
		Base: []string{
			"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general-0\nspec:\n  template:\n    spec:\n      expireAfter: Never\n      requirements: []",
			"apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: kube-system",
		},
		Launches: map[string]Claim{},
		Disrupt:  &simPhase{Deleted: []string{"default/app-0-1"}, Decision: &DisruptAnswer{Decision: "delete", Reason: "empty", Nodes: []string{"general-0-abc"}}, DecideSeconds: 21.6},
		Timeline: controller.Timeline{
			Pods: []controller.PodRecord{
				{Name: "default/app-0-0", Wave: 1, Created: 0, Manifest: pod("default", "app-0-0")},
				{Name: "default/app-0-1", Wave: 1, Created: 0.02, Deleted: fp(40.4), Manifest: pod("default", "app-0-1")},
				{Name: "wave2/app-0-0", Wave: 2, Created: 12.6, Manifest: pod("wave2", "app-0-0")},
			},
			Claims: []controller.ClaimRecord{
				{Name: "general-0-abc", Launched: 1.1, Initialized: fp(1.7)},
				{Name: "general-0-def", Launched: 13.7, Initialized: fp(15.1)},
			},
			Budgets: []controller.BudgetRecord{
				{At: 38.2, Disruption: json.RawMessage(`{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5s","budgets":[{"nodes":"0"}]}`)},
				{At: 70.8, Disruption: json.RawMessage(`{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5s","budgets":[{"nodes":"50%"}]}`)},
			},
		},
	}
}

func TestSimRequestFromTimeline(t *testing.T) {
	tl := smallTimeline()
	f, err := simRequest(tl)
	if err != nil {
		t.Fatal(err)
	}
	var trace struct {
		Kind   string           `json:"kind"`
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal([]byte(f.Trace), &trace); err != nil {
		t.Fatal(err)
	}
	if trace.Kind != "Trace" {
		t.Fatalf("kind %q", trace.Kind)
	}
	// Pods at their creation second, in order; the budget edits and the deletion at theirs.
	type want struct{ at, what, name string }
	wants := []want{
		{"0s", "submit", "app-0-0-default"},
		{"0s", "submit", "app-0-1"},
		{"13s", "submit", "app-0-0-wave2"},
		{"38s", "nodePool", "general-0"},
		{"40s", "delete", "app-0-1"},
		{"71s", "nodePool", "general-0"},
	}
	if len(trace.Events) != len(wants) {
		t.Fatalf("%d events, want %d: %s", len(trace.Events), len(wants), f.Trace)
	}
	for i, w := range wants {
		e := trace.Events[i]
		if e["at"] != w.at {
			t.Errorf("event %d at %v, want %s", i, e["at"], w.at)
		}
		switch w.what {
		case "submit":
			m := e["submit"].(map[string]any)["manifest"].(map[string]any)
			if e["name"] != w.name || m["kind"] != "Pod" {
				t.Errorf("event %d: %v", i, e)
			}
		case "delete":
			if e["delete"] != w.name {
				t.Errorf("event %d: %v", i, e)
			}
		case "nodePool":
			np := e["nodePool"].(map[string]any)
			if np["metadata"].(map[string]any)["name"] != w.name {
				t.Errorf("event %d: %v", i, e)
			}
			spec := np["spec"].(map[string]any)
			if spec["template"] == nil {
				t.Errorf("event %d: the template is lost: %v", i, spec)
			}
			budget := spec["disruption"].(map[string]any)["budgets"].([]any)[0].(map[string]any)["nodes"]
			if (i == 3 && budget != "0") || (i == 5 && budget != "50%") {
				t.Errorf("event %d: budget %v", i, budget)
			}
		}
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(f.Settings), &s); err != nil {
		t.Fatal(err)
	}
	// Start-up: the median of 0.6 s and 1.4 s, the upper one (index 1 of 2) rounded: 1 s.
	if up := s["startupSeconds"].(map[string]any); up["min"] != 1.0 || up["max"] != 1.0 {
		t.Errorf("startupSeconds %v", up)
	}
	if s["spotInterruptionRatePerHour"] != 0.0 || s["batchIdleSeconds"] != 1.0 || s["batchMaxSeconds"] != 10.0 || s["disruptionPollSeconds"] != 10.0 {
		t.Errorf("settings %v", s)
	}
	if dp := s["devicePluginSeconds"].(map[string]any); dp["max"] != 0.0 {
		t.Errorf("devicePluginSeconds %v", dp)
	}
	// The end: 15 s after the controller's decision (70.8 + 21.6 = 92.4 → 92).
	if s["endSeconds"] != 107.0 || f.End != 107 {
		t.Errorf("endSeconds %v", s["endSeconds"])
	}
	if !f.CatalogFile || f.Catalog != `{"catalog":{"source":"aws-us-east-1","unavailable":[{"capacityType":"spot"}]}}` {
		t.Errorf("catalog %v %q", f.CatalogFile, f.Catalog)
	}
	if f.Cluster == "" || !json.Valid([]byte(f.Trace)) {
		t.Error("empty cluster or invalid trace")
	}
}

// The comparison names simulated NodeClaims after the real ones by their pods and maps the
// decision's Nodes through it.
func TestCompareSimPairsByPods(t *testing.T) {
	tl := smallTimeline()
	tl.Pods[0].NominatedTo, tl.Pods[1].NominatedTo = "nodeclaim/general-0-abc", "nodeclaim/general-0-abc"
	tl.Pods[2].NominatedTo = "nodeclaim/general-0-def"
	tl.Pods[0].Nominated, tl.Pods[1].Nominated, tl.Pods[2].Nominated = fp(1.1), fp(1.1), fp(13.7)
	tl.Claims[0].Pods = []string{"default/app-0-0", "default/app-0-1"}
	tl.Claims[1].Pods = []string{"wave2/app-0-0"}
	tl.Launches["general-0-abc"] = Claim{NodePool: "general-0", Launch: &Launch{CapacityType: "on-demand", Types: map[string][]string{"m5.large": {"us-east-1a"}}}}
	tl.Launches["general-0-def"] = Claim{NodePool: "general-0", Launch: &Launch{CapacityType: "on-demand", Types: map[string][]string{"m5.large": {"us-east-1a"}}}}
	a := &simAnswer{Status: "success"}
	for _, n := range []struct {
		name string
		at   int
	}{{"general-0-1", 1}, {"general-0-2", 14}} {
		a.Nodes = append(a.Nodes, simNode{Name: n.name, NodePool: "general-0", InstanceType: "m5.large", CapacityType: "on-demand", Zone: "us-east-1a", LaunchedSeconds: n.at})
	}
	a.Timeline = []simEvent{
		{TimeSeconds: 1, Event: "pod-nominated", Object: "default/app-0-0-default", Node: "general-0-1"},
		{TimeSeconds: 1, Event: "pod-nominated", Object: "default/app-0-1", Node: "general-0-1"},
		{TimeSeconds: 14, Event: "pod-nominated", Object: "wave2/app-0-0-wave2", Node: "general-0-2"},
		{TimeSeconds: 80, Event: "nodeclaim-disrupted", Object: "general-0-1", Reason: "empty"},
	}
	res := compareSim(tl, a, &oneShot{plan: map[string]*ProvisionAnswer{}, disrupt: map[string]*DisruptAnswer{}})
	if len(res) != 4 {
		t.Fatalf("%d results: %+v", len(res), res)
	}
	for _, r := range res {
		if !r.Agree {
			t.Errorf("%s: %s: %s", r.Item, r.Class, r.Detail)
		}
	}
	if d := res[3].Sim.(*DisruptAnswer); d.Nodes[0] != "general-0-abc" {
		t.Errorf("the simulated node is not named after the real one: %v", d.Nodes)
	}
	// Another decision in the simulation is a difference.
	a.Timeline[3].Reason = "underutilized"
	res = compareSim(tl, a, &oneShot{plan: map[string]*ProvisionAnswer{}, disrupt: map[string]*DisruptAnswer{}})
	if res[3].Agree || res[3].Class != "reason differs (nodecast underutilized, karpenter empty)" {
		t.Errorf("%+v", res[3])
	}
}

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

func sreq(key string, op corev1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirementWithMinValues {
	return v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

// fakeType is shaped as Karpenter's fake cloud provider makes them: several OS values, one
// offering per zone and capacity type.
func fakeType(name string, cpu string, price float64) suiteInstanceType {
	it := suiteInstanceType{
		Name: name,
		Requirements: []v1.NodeSelectorRequirementWithMinValues{
			sreq(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, name),
			sreq(corev1.LabelArchStable, corev1.NodeSelectorOpIn, "amd64"),
			sreq(corev1.LabelOSStable, corev1.NodeSelectorOpIn, "darwin", "linux", "windows"),
			sreq(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"),
			sreq(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand", "spot"),
			sreq("size", corev1.NodeSelectorOpIn, "small"),
			sreq("special", corev1.NodeSelectorOpDoesNotExist),
		},
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("5")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("5")},
	}
	for _, z := range []string{"test-zone-1", "test-zone-2"} {
		for _, ct := range []string{"spot", "on-demand"} {
			it.Offerings = append(it.Offerings, suiteOffering{
				Requirements: []v1.NodeSelectorRequirementWithMinValues{sreq(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, z), sreq(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct)},
				Price:        price, Available: true,
			})
		}
	}
	return it
}

func suitePassFixture() *SuitePass {
	np := v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default", UID: "np-uid", ResourceVersion: "7",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}}}
	np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{sreq(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")}
	np.StatusConditions().SetTrue(status.ConditionReady)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "pod-uid"}}
	pod.Spec.Containers = []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}
	types := []suiteInstanceType{fakeType("small", "2", 0.1), fakeType("large", "8", 0.4)}
	return &SuitePass{
		Spec:          "Scheduling Basic should schedule",
		File:          "/tmp/nodecast-suite.x/karpenter/pkg/controllers/provisioning/scheduling/suite_test.go",
		Pods:          []*corev1.Pod{pod},
		NodePools:     []v1.NodePool{np},
		InstanceTypes: map[string][]suiteInstanceType{"default": types},
		Settings:      map[string]any{"maxInstanceTypes": 60.0, "minValuesPolicy": "Strict", "preferencePolicy": "Respect", "ignoreDraRequests": true, "featureGates": map[string]any{"SpotToSpotConsolidation": false}},
		Claims: []suiteClaim{{NodePool: "default", Pods: []string{"default/web"}, Options: []string{"large", "small"},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{sreq(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")}}},
		Existing: map[string]string{},
		Errors:   map[string]string{},
	}
}

func TestSuitePassConverts(t *testing.T) {
	p := suitePassFixture()
	c, err := p.Convert(suiteName("scheduling", p.Spec, 1))
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	if !strings.HasPrefix(c.Name, "scheduling-") || !strings.HasSuffix(c.Name, "-1") {
		t.Errorf("name %q", c.Name)
	}
	if want := `kubernetes-sigs/karpenter v1.15.0 pkg/controllers/provisioning/scheduling/suite_test.go: "Scheduling Basic should schedule"`; c.Reference != want {
		t.Errorf("reference %q, want %q", c.Reference, want)
	}
	cat := c.Scenario["catalog"].(map[string]any)
	if z := cat["zones"].([]string); !slices.Equal(z, []string{"test-zone-1", "test-zone-2"}) {
		t.Errorf("zones %v", z)
	}
	small := cat["instanceTypes"].([]map[string]any)[0]
	labels := small["labels"].(map[string]string)
	// One OS of the several the fake type offers (nothing in the pass mentions the key); the
	// DoesNotExist requirement is no label; zone and capacity type come from the offerings.
	if labels["kubernetes.io/os"] != "linux" || labels["size"] != "small" || len(labels) != 3 {
		t.Errorf("labels %v", labels)
	}
	if offs := small["offerings"].([]map[string]any); len(offs) != 4 || offs[1]["capacityType"] != "on-demand" {
		t.Errorf("offerings %v", offs)
	}
	if s := c.Scenario["settings"].(map[string]any); s["maxInstanceTypes"] != 60.0 {
		t.Errorf("settings %v", s)
	}
	objects := c.Scenario["objects"].(string)
	if strings.Contains(objects, "managedFields") || strings.Contains(objects, "resourceVersion") {
		t.Errorf("server-side bookkeeping kept:\n%s", objects)
	}
	for _, want := range []string{"kind: NodePool", "kind: Pod", "uid: pod-uid", "apiVersion: karpenter.sh/v1"} {
		if !strings.Contains(objects, want) {
			t.Errorf("objects lack %q:\n%s", want, objects)
		}
	}
	if strings.Contains(objects, "status:\n    conditions") {
		t.Errorf("the NodePool's status is kept:\n%s", objects)
	}
	// Karpenter's answer: one claim; on-demand launch of the cheapest option, in either zone.
	k := c.Karpenter
	if len(k.Claims) != 1 || k.Claims[0].Launch == nil {
		t.Fatalf("answer %+v", k)
	}
	l := k.Claims[0].Launch
	if l.CapacityType != "on-demand" || len(l.Types) != 1 || !slices.Equal(l.Types["small"], []string{"test-zone-1", "test-zone-2"}) {
		t.Errorf("launch %+v", l)
	}
	e := c.Scenario["expect"].(map[string]any)
	web := e["pods"].(map[string]any)["web"].(map[string]any)
	if e["newNodeClaims"] != 1 || web["nodePool"] != "default" || !slices.Equal(web["instanceTypes"].([]string), []string{"small"}) {
		t.Errorf("expect %v", e)
	}
	// The answer survives the harness's JSON round trip and agrees with itself.
	b, _ := json.Marshal(k)
	var back ProvisionAnswer
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	back.Claims[0].InstanceType, back.Claims[0].CapacityType, back.Claims[0].Zone = "small", "on-demand", "test-zone-2"
	if cls, d := CompareProvision(&back, k); cls != "" {
		t.Errorf("self-comparison: %s %s", cls, d)
	}
}

func TestSuitePassExclusions(t *testing.T) {
	cases := map[string]func(p *SuitePass){
		"volumes (PVC topology, CSI limits)": func(p *SuitePass) {
			p.Pods[0].Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
		},
		"nodes being deleted": func(p *SuitePass) { p.DeletingPods = []string{"default/old"} },
		"static NodePools":    func(p *SuitePass) { p.NodePools[0].Spec.Replicas = new(int64) },
		"NodePool not Ready or deleting": func(p *SuitePass) {
			p.NodePools[0].StatusConditions().SetFalse(status.ConditionReady, "NotReady", "test")
		},
		"multi-valued instance-type requirement in use": func(p *SuitePass) {
			p.Pods[0].Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
		},
		"reserved offerings": func(p *SuitePass) {
			it := &p.InstanceTypes["default"][0]
			it.Offerings[0].Requirements[1].Values = []string{"reserved"}
		},
		"offering requirement beyond zone and capacity type": func(p *SuitePass) {
			it := &p.InstanceTypes["default"][0]
			it.Offerings[0].Requirements = append(it.Offerings[0].Requirements, sreq("karpenter.sh/reservation-id", corev1.NodeSelectorOpIn, "r-1"))
		},
		"instance types differ per NodePool": func(p *SuitePass) {
			other := p.NodePools[0]
			other.Name = "other"
			p.NodePools = append(p.NodePools, other)
			p.InstanceTypes["other"] = p.InstanceTypes["default"][:1]
		},
		"DRA resource claims": func(p *SuitePass) {
			p.Pods[0].Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}}
		},
		"harness: dump incomplete": func(p *SuitePass) { p.DumpError = "listing pods: timeout" },
		"Node in the API server but not in Karpenter's state": func(p *SuitePass) {
			p.APINodes = []string{"ghost"}
			p.BoundPods = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "ghost"}}}
			p.Pods[0].Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
		},
	}
	for want, edit := range cases {
		p := suitePassFixture()
		edit(p)
		_, err := p.Convert("x")
		ex, ok := err.(*Excluded)
		if !ok || ex.Category != want {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// A pod on a Node Karpenter's state does not track is left out when nothing asks for topology
// (Karpenter sees no capacity there and counts no domain), and on a Node that exists nowhere always.
func TestSuitePassDropsPodsOffState(t *testing.T) {
	for _, api := range [][]string{{"ghost"}, nil} {
		p := suitePassFixture()
		p.APINodes = api
		p.BoundPods = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "ghost"}}}
		c, err := p.Convert("x")
		if err != nil {
			t.Fatalf("api nodes %v: %v", api, err)
		}
		if strings.Contains(c.Scenario["objects"].(string), "name: old") {
			t.Errorf("api nodes %v: the pod on the untracked node is in the scenario", api)
		}
	}
}

// Zone or capacity-type differences are named as domain choices only when a pending pod spreads
// (or has pod affinity) over one of those keys.
func TestSuiteCaseDomainChoice(t *testing.T) {
	pod := &corev1.Pod{}
	p := &SuitePass{Pods: []*corev1.Pod{pod}}
	c := &SuiteCase{domainTopology: p.domainTopology()}
	if c.DomainChoice("launched offering differs") {
		t.Fatal("no spread: not a domain choice")
	}
	pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelHostname}}
	if p.domainTopology() {
		t.Fatal("a hostname spread is not over zones or capacity types")
	}
	pod.Spec.TopologySpreadConstraints = append(pod.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{TopologyKey: corev1.LabelTopologyZone})
	c.domainTopology = p.domainTopology()
	if !c.DomainChoice("launched offering differs") || !c.DomainChoice("unschedulable pods differ") || c.DomainChoice("deferred pods differ (reserved capacity)") {
		t.Fatal("a zonal spread: offering differences and left-over pods are domain choices, deferred pods are not")
	}
}

// Hostname topology over a Node without the kubernetes.io/hostname label names an existing-node
// placement difference; without hostname topology, or with the label, it does not.
func TestSuitePassHostnameless(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
	pod := &corev1.Pod{}
	p := &SuitePass{Pods: []*corev1.Pod{pod}, Nodes: []suiteStateNode{{Name: "n", Node: node}}}
	if p.hostnameless() {
		t.Fatal("no hostname topology in use")
	}
	pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname}}}}
	c := &SuiteCase{hostnameless: p.hostnameless()}
	if !c.HostnamelessNodes("existing-node placements differ") || c.HostnamelessNodes("unschedulable pods differ") {
		t.Fatal("hostname anti-affinity over a Node without the label: only placements are named")
	}
	node.Labels[corev1.LabelHostname] = "n"
	if p.hostnameless() {
		t.Fatal("the Node has the label")
	}
}

// Two Karpenter answers to one pass agree whatever their claims' order, empty maps and the
// nodecast-only fields; a different zone in the launch set, or a different pod grouping, differs.
func TestSameKarpenter(t *testing.T) {
	launchIn := func(zone string) *Launch {
		return &Launch{CapacityType: "on-demand", Cheapest: 0.1, Types: map[string][]string{"small": {zone}}}
	}
	a := &ProvisionAnswer{Claims: []Claim{{Pods: []string{"d/b"}, NodePool: "p", Options: []string{"small"}, Launch: launchIn("z1")},
		{Pods: []string{"d/a"}, NodePool: "p", Options: []string{"small"}, Launch: launchIn("z2")}}, Existing: map[string]string{}}
	b := &ProvisionAnswer{Claims: []Claim{a.Claims[1], a.Claims[0]}, Unschedulable: []string{}}
	b.Claims[0].Held = []string{"cr-1"}
	if !sameKarpenter(a, b) {
		t.Fatal("same answer in another order: want same")
	}
	c := &ProvisionAnswer{Claims: []Claim{a.Claims[0], a.Claims[1]}}
	c.Claims[1].Launch = launchIn("z3")
	if sameKarpenter(a, c) {
		t.Fatal("another zone: want different")
	}
	d := &ProvisionAnswer{Claims: []Claim{{Pods: []string{"d/a", "d/b"}, NodePool: "p", Options: []string{"small"}, Launch: launchIn("z1")}}}
	if sameKarpenter(a, d) {
		t.Fatal("another grouping: want different")
	}
}

// A pass with default spreads converts when the dump holds what selectors are deduced from: the
// scheduler config goes to the settings, the Services and controllers to the objects (workloads
// with replicas 0, so nodecast adds no pods); an older dump without them is excluded.
func TestSuitePassDefaultSpreads(t *testing.T) {
	p := suitePassFixture()
	p.Settings["schedulerConfig"] = map[string]any{"podTopologySpread": map[string]any{"defaultConstraints": []any{
		map[string]any{"maxSkew": float64(1), "topologyKey": corev1.LabelTopologyZone, "whenUnsatisfiable": "DoNotSchedule"}}}}
	if _, err := p.Convert("x"); err == nil || !strings.Contains(err.Error(), "older dump") {
		t.Fatalf("older dump: got %v", err)
	}
	three := int32(3)
	p.ReplicaSets = []appsv1.ReplicaSet{{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}}
	p.Services = []corev1.Service{{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "a"}}}}
	c, err := p.Convert("x")
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	if c.Scenario["settings"].(map[string]any)["schedulerConfig"] == nil {
		t.Fatal("schedulerConfig not in the settings")
	}
	objs := c.Scenario["objects"].(string)
	for _, want := range []string{"kind: ReplicaSet", "replicas: 0", "kind: Service"} {
		if !strings.Contains(objs, want) {
			t.Errorf("objects lack %q:\n%s", want, objs)
		}
	}
}

// Karpenter's state counting requests the API server's pods do not make (the suite deleted bound
// pods without telling it), or the reverse, or remembering a different anti-affinity pod: the
// pass is excluded. An older dump (no state counts recorded) is not checked.
func TestSuitePassStateMatchesAPI(t *testing.T) {
	const cat = "Karpenter's cluster state and the API server disagree on bound pods (the suite updates the state by hand)"
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{corev1.LabelHostname: "n1"}}}
	bound := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "n1",
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1100m")}}}}}}
	onePod := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1100m"), corev1.ResourcePods: resource.MustParse("1")}
	twoPods := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2200m"), corev1.ResourcePods: resource.MustParse("2")}
	fixture := func(requests corev1.ResourceList, boundPods ...corev1.Pod) *SuitePass {
		p := suitePassFixture()
		p.Nodes = []suiteStateNode{{Name: "n1", Node: node, Initialized: true, PodRequests: requests}}
		p.BoundPods, p.AntiAffinityPods = boundPods, map[string]string{}
		return p
	}
	for _, c := range []struct {
		name string
		p    *SuitePass
		want bool
	}{
		{"the same pod on both sides", fixture(onePod, bound), false},
		{"the state still counts a pod the API server deleted", fixture(twoPods, bound), true},
		{"the API server has a pod the state was not told of", fixture(corev1.ResourceList{}, bound), true},
		{"an older dump", func() *SuitePass { p := fixture(nil, bound); p.AntiAffinityPods = nil; return p }(), false},
		{"the state remembers a deleted anti-affinity pod", func() *SuitePass {
			p := fixture(onePod, bound)
			p.AntiAffinityPods["default/gone"] = "n1"
			return p
		}(), true},
	} {
		_, err := c.p.Convert("x")
		ex, excluded := err.(*Excluded)
		if excluded && ex.Category != cat || !excluded && err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if excluded != c.want {
			t.Errorf("%s: excluded %v, want %v", c.name, excluded, c.want)
		}
	}
}

// The in-process Karpenter applies settings.maxInstanceTypes (the suite's 60-type cut), and
// keeps a Node without kubernetes.io/hostname so when asked to (the suite's state); otherwise it
// labels the Node with its name, as a kubelet does.
func TestKarpenterSuiteState(t *testing.T) {
	cat := testCatalog()
	big := cat.Types[0]
	big.Name, big.Allocatable, big.Capacity = "r.xlarge", map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}, map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}
	big.Offerings = []CatalogOffering{{Zone: "us-east-1a", CapacityType: "on-demand", Price: 2, Available: true}}
	cat.Types = append(cat.Types, big)
	objects := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata: {name: bare, labels: {topology.kubernetes.io/zone: us-east-1a}}\nstatus: {allocatable: {cpu: \"1\", pods: \"10\"}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"2\"}}}]}\n---\n"
	env := func(settings map[string]any, hostnameless bool) *Env {
		s := &Scenario{Name: "t", Kind: "provision", Objects: objects, Settings: settings, hostnameless: hostnameless}
		s.Clock.Now = selNow.Format(time.RFC3339)
		e, err := newEnvWith(s, cat, func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes { return cat.InstanceTypes(r) })
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	options := func(e *Env) int {
		a, err := e.Provision(nil)
		if err != nil || len(a.Claims) != 1 {
			t.Fatalf("provision: %v %+v", err, a)
		}
		return len(a.Claims[0].Options)
	}
	if n := options(env(map[string]any{}, false)); n < 2 {
		t.Fatalf("the test catalog offers %d types for the pod; the cut needs at least 2", n)
	}
	if n := options(env(map[string]any{"maxInstanceTypes": 1.0}, false)); n != 1 {
		t.Errorf("maxInstanceTypes 1: %d options", n)
	}
	if _, err := newEnvWith(&Scenario{Name: "t", Kind: "provision", Settings: map[string]any{"maxInstanceTypes": 0.5}}, cat, nil); err == nil {
		t.Errorf("maxInstanceTypes 0.5 accepted")
	}
	for _, hostnameless := range []bool{false, true} {
		e := env(map[string]any{}, hostnameless)
		n := &corev1.Node{}
		if err := e.client.Get(e.ctx, client.ObjectKey{Name: "bare"}, n); err != nil {
			t.Fatal(err)
		}
		if got, has := n.Labels[corev1.LabelHostname]; has == hostnameless || has && got != "bare" {
			t.Errorf("hostnameless %v: hostname label %q (present %v)", hostnameless, got, has)
		}
	}
}

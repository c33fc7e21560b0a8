package main

// Karpenter's own suites as a differential corpus (issue 39, oracle/suite/): one provisioning pass
// that Karpenter's test suite ran, as dumped by oracle/suite/dump.go.in, turned into a nodecast
// scenario (FORMAT.md) and Karpenter's answer in the harness's normalised form.

import (
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/awslabs/operatorpkg/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// The JSON a pass is dumped as (field for field the types of dump.go.in).
type suiteOffering struct {
	Requirements []v1.NodeSelectorRequirementWithMinValues `json:"requirements"`
	Price        float64                                   `json:"price"`
	Available    bool                                      `json:"available"`
	Capacity     int                                       `json:"reservationCapacity,omitempty"`
	Overrides    bool                                      `json:"overrides,omitempty"`
}

type suiteInstanceType struct {
	Name         string                                    `json:"name"`
	Requirements []v1.NodeSelectorRequirementWithMinValues `json:"requirements"`
	Offerings    []suiteOffering                           `json:"offerings"`
	Capacity     corev1.ResourceList                       `json:"capacity"`
	Allocatable  corev1.ResourceList                       `json:"allocatable"`
	DRA          bool                                      `json:"dra,omitempty"`
	VolumeLimits bool                                      `json:"volumeLimits,omitempty"`
}

type suiteStateNode struct {
	Name              string              `json:"name"`
	Node              *corev1.Node        `json:"node,omitempty"`
	NodeClaim         *v1.NodeClaim       `json:"nodeClaim,omitempty"`
	Initialized       bool                `json:"initialized"`
	Managed           bool                `json:"managed"`
	MarkedForDeletion bool                `json:"markedForDeletion"`
	Allocatable       corev1.ResourceList `json:"allocatable"`
	Taints            []corev1.Taint      `json:"taints"`
	// What Karpenter's cluster state counts as requested on the node (dumps since issue 39's
	// sixth round; nil before).
	PodRequests corev1.ResourceList `json:"podRequests"`
}

type suiteClaim struct {
	NodePool     string                                    `json:"nodePool"`
	Pods         []string                                  `json:"pods"`
	Options      []string                                  `json:"options"`
	Requirements []v1.NodeSelectorRequirementWithMinValues `json:"requirements"`
}

// SuitePass is one dumped Provisioner.Schedule call.
type SuitePass struct {
	Spec          string                         `json:"spec"`
	File          string                         `json:"file"`
	Pods          []*corev1.Pod                  `json:"pods"`
	DeletingPods  []string                       `json:"deletingPods"`
	NodePools     []v1.NodePool                  `json:"nodePools"`
	InstanceTypes map[string][]suiteInstanceType `json:"instanceTypes"`
	Nodes         []suiteStateNode               `json:"nodes"`
	BoundPods     []corev1.Pod                   `json:"boundPods"`
	APINodes      []string                       `json:"apiNodes"`
	// The bound pods with required anti-affinity Karpenter's cluster state remembers, with
	// their node (dumps since the sixth round; nil before).
	AntiAffinityPods map[string]string  `json:"antiAffinityPods"`
	DaemonSets       []appsv1.DaemonSet `json:"daemonSets"`
	DaemonSetPods    []corev1.Pod       `json:"daemonSetPods"`
	// What default topology spreads deduce selectors from (dumps since issue 39's fourth round).
	Services               []corev1.Service               `json:"services"`
	ReplicaSets            []appsv1.ReplicaSet            `json:"replicaSets"`
	StatefulSets           []appsv1.StatefulSet           `json:"statefulSets"`
	ReplicationControllers []corev1.ReplicationController `json:"replicationControllers"`
	Storage                map[string]int                 `json:"storage"`
	Settings               map[string]any                 `json:"settings"`
	Claims                 []suiteClaim                   `json:"claims"`
	Existing               map[string]string              `json:"existing"`
	Errors                 map[string]string              `json:"errors"`
	DumpError              string                         `json:"dumpError,omitempty"`
}

// Excluded is a pass nodecast cannot be asked about as Karpenter was, by category.
type Excluded struct{ Category, Detail string }

func (e *Excluded) Error() string { return e.Category + ": " + e.Detail }

func exclude(cat, format string, args ...any) *Excluded {
	return &Excluded{Category: cat, Detail: fmt.Sprintf(format, args...)}
}

// SuiteCase is a converted pass: the scenario and Karpenter's answer to it.
type SuiteCase struct {
	Name      string
	Reference string
	Scenario  map[string]any
	Karpenter *ProvisionAnswer
	// A disruption decision's case (suite_disrupt.go): Karpenter's decision; Karpenter is nil.
	Disrupt *DisruptAnswer
	// Per Karpenter claim (its pods joined by ","): each option's price as OrderByPrice sees it
	// (cheapest launchable offering compatible with the claim), and how many options it kept.
	prices map[string]map[string]float64
	limit  int
	// A disruption decision's nodes by name: when their NodeClaim's Drifted condition turned
	// True (drift.go orders its candidates by that time alone, with sort.Slice).
	driftedAt map[string]time.Time
	// A pending pod of the pass spreads or has pod (anti-)affinity over zones or capacity types.
	domainTopology bool
	// A Node of the pass has no kubernetes.io/hostname label while hostname topology is in use.
	hostnameless bool
}

// suiteName: stable across runs (ginkgo shuffles spec order): the suite, a hash of the spec's
// text and the pass's index within the spec.
func suiteName(suite, spec string, pass int) string {
	h := fnv.New32a()
	h.Write([]byte(spec))
	return fmt.Sprintf("%s-%08x-%d", suite, h.Sum32(), pass)
}

var karpenterPath = regexp.MustCompile(`^.*/karpenter/(pkg/.*)$`)

// Convert turns a pass into a scenario, or says why it is not comparable.
func (p *SuitePass) Convert(name string) (*SuiteCase, error) {
	if p.DumpError != "" {
		return nil, exclude("harness: dump incomplete", "%s", p.DumpError)
	}
	if err := p.checkModelled(); err != nil {
		return nil, err
	}
	catalog, its, err := p.catalog()
	if err != nil {
		return nil, err
	}
	objects, err := p.objects()
	if err != nil {
		return nil, err
	}
	file := p.File
	if m := karpenterPath.FindStringSubmatch(file); m != nil {
		file = m[1]
	}
	c := &SuiteCase{
		Name:      name,
		Reference: fmt.Sprintf("kubernetes-sigs/karpenter v1.15.0 %s: %q", file, p.Spec),
	}
	c.Karpenter = p.answer(its)
	c.prices = p.optionPrices(its)
	c.domainTopology = p.domainTopology()
	c.hostnameless = p.hostnameless()
	if n, ok := p.Settings["maxInstanceTypes"].(float64); ok {
		c.limit = int(n)
	}
	c.Scenario = map[string]any{
		"name":        name,
		"description": "A provisioning pass of Karpenter v1.15.0's own test suite, replayed; the expectation is Karpenter's result (oracle/suite).",
		"reference":   c.Reference,
		"kind":        "provision",
		"catalog":     catalog,
		"settings":    p.settings(),
		"objects":     objects,
		"expect":      expectation(c.Karpenter, p.Pods),
	}
	return c, nil
}

// checkModelled: the inputs of the pass that nodecast does not model, or that the format cannot say.
func (p *SuitePass) checkModelled() error {
	if len(p.DeletingPods) > 0 {
		return exclude("nodes being deleted", "%d pods of deleting nodes rescheduled", len(p.DeletingPods))
	}
	for _, n := range p.Nodes {
		if n.MarkedForDeletion {
			return exclude("nodes being deleted", "node %s is marked for deletion", n.Name)
		}
	}
	for _, np := range p.NodePools {
		if np.Spec.Replicas != nil {
			return exclude("static NodePools", "NodePool %s has spec.replicas", np.Name)
		}
		if !np.DeletionTimestamp.IsZero() || !np.StatusConditions().IsTrue(status.ConditionReady) {
			return exclude("NodePool not Ready or deleting", "NodePool %s", np.Name)
		}
	}
	for _, pod := range p.Pods {
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
				return exclude("volumes (PVC topology, CSI limits)", "pod %s/%s mounts volume %s", pod.Namespace, pod.Name, v.Name)
			}
		}
		if len(pod.Spec.ResourceClaims) > 0 {
			return exclude("DRA resource claims", "pod %s/%s", pod.Namespace, pod.Name)
		}
		if a := pod.Spec.Affinity; a != nil {
			for _, t := range affinityTerms(a) {
				if t.NamespaceSelector != nil {
					return exclude("pod affinity namespaceSelector (Namespace objects)", "pod %s/%s", pod.Namespace, pod.Name)
				}
			}
		}
	}
	// A pod bound to a Node the API server has but Karpenter's state does not track uses no
	// capacity Karpenter sees, yet its topology would count it (countDomains reads the Node from
	// the API server). Left out of the scenario, that is exact only when no topology is asked.
	if p.usesTopology() {
		for _, pod := range p.BoundPods {
			if !p.inState(pod.Spec.NodeName) && slices.Contains(p.APINodes, pod.Spec.NodeName) {
				return exclude("Node in the API server but not in Karpenter's state", "node %s (pod %s/%s)", pod.Spec.NodeName, pod.Namespace, pod.Name)
			}
		}
	}
	if p.Settings["ignoreDraRequests"] == false {
		return exclude("DRA resource claims", "ignoreDraRequests=false")
	}
	if err := p.stateMatchesAPI(); err != nil {
		return err
	}
	if defaultSpreads(p.Settings) && p.Services == nil && p.ReplicaSets == nil && p.StatefulSets == nil && p.ReplicationControllers == nil {
		// Dumps before the fourth round did not record what the selectors are deduced from.
		return exclude("cluster default topology spreads: Services and owners not in the dump (older dump)", "settings.schedulerConfig")
	}
	return nil
}

// addOwners: the Services and controllers default topology spreads deduce selectors from, when
// Karpenter had default spreads. No controller runs in the suite's envtest, so its pods are the
// pass's own: a ReplicaSet or StatefulSet goes in with replicas 0, so that nodecast (which
// expands a workload into the pods its controller would still create) adds none.
func (p *SuitePass) addOwners(add func(string, string, *metav1.ObjectMeta, any)) {
	if !defaultSpreads(p.Settings) {
		return
	}
	zero := int32(0)
	for i := range p.Services {
		svc := p.Services[i]
		svc.Status = corev1.ServiceStatus{}
		add("v1", "Service", &svc.ObjectMeta, &svc)
	}
	for i := range p.ReplicaSets {
		rs := p.ReplicaSets[i]
		rs.Spec.Replicas, rs.Status = &zero, appsv1.ReplicaSetStatus{}
		add("apps/v1", "ReplicaSet", &rs.ObjectMeta, &rs)
	}
	for i := range p.StatefulSets {
		ss := p.StatefulSets[i]
		ss.Spec.Replicas, ss.Status = &zero, appsv1.StatefulSetStatus{}
		add("apps/v1", "StatefulSet", &ss.ObjectMeta, &ss)
	}
	for i := range p.ReplicationControllers {
		rc := p.ReplicationControllers[i]
		rc.Status = corev1.ReplicationControllerStatus{}
		add("v1", "ReplicationController", &rc.ObjectMeta, &rc)
	}
}

// defaultSpreads: Karpenter was given default topology spread constraints (--scheduler-config),
// which it injects into pods without spreads of their own (scheduling/defaultconstraints.go).
func defaultSpreads(settings map[string]any) bool {
	c, _ := settings["schedulerConfig"].(map[string]any)
	s, _ := c["podTopologySpread"].(map[string]any)
	d, _ := s["defaultConstraints"].([]any)
	return len(d) > 0
}

// domainTopology: a pending pod spreads, or has pod (anti-)affinity, over zones or capacity types.
func (p *SuitePass) domainTopology() bool {
	domain := func(key string) bool { return key == corev1.LabelTopologyZone || key == v1.CapacityTypeLabelKey }
	// A default spread (--scheduler-config) over such a key reaches the pods without their own.
	c, _ := p.Settings["schedulerConfig"].(map[string]any)
	s, _ := c["podTopologySpread"].(map[string]any)
	defaults, _ := s["defaultConstraints"].([]any)
	for _, d := range defaults {
		if m, ok := d.(map[string]any); ok {
			if key, _ := m["topologyKey"].(string); domain(key) {
				for _, pod := range p.Pods {
					if len(pod.Spec.TopologySpreadConstraints) == 0 {
						return true
					}
				}
			}
		}
	}
	for _, pod := range p.Pods {
		for _, c := range pod.Spec.TopologySpreadConstraints {
			if domain(c.TopologyKey) {
				return true
			}
		}
		if pod.Spec.Affinity != nil {
			for _, t := range affinityTerms(pod.Spec.Affinity) {
				if domain(t.TopologyKey) {
					return true
				}
			}
		}
	}
	return false
}

// DomainChoice: a pass whose pods spread (or have pod affinity) over zones or capacity types
// differs in a zone or capacity type: where, or on which offering, a pod landed. Karpenter picks
// among domains of equal count in Go map order (topologygroup.go nextDomainTopologySpread ranges
// over a map or over Requirement.Values, an UnsortedList), and the suite ran it once, so such a
// pass is named as a likely domain tie; it is not verified per pass.
func (c *SuiteCase) DomainChoice(class string) bool {
	switch class {
	case "launched offering differs", "instance-type options differ", "existing-node placements differ",
		"pods grouped into NodeClaims differently (same count and $/h)",
		// Which pods are left over can follow from the domains picked before them (oracle/README.md,
		// provision-53): "Topology Combined Zonal and Capacity Type Topology should spread pods
		// while respecting both constraints" agreed in one envtest run and not in the next.
		"unschedulable pods differ":
		return c.domainTopology
	}
	return false
}

// usesTopology: a pending pod has a spread or pod (anti-)affinity, or a bound pod a required
// anti-affinity (which repels pending pods).
func (p *SuitePass) usesTopology() bool {
	for _, pod := range p.Pods {
		if len(pod.Spec.TopologySpreadConstraints) > 0 || pod.Spec.Affinity != nil && len(affinityTerms(pod.Spec.Affinity)) > 0 {
			return true
		}
	}
	for _, pod := range p.BoundPods {
		if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	return false
}

// inState: a node (or in-flight NodeClaim) Karpenter's cluster state tracks.
func (p *SuitePass) inState(name string) bool {
	for _, n := range p.Nodes {
		if n.Name == name || n.Node != nil && n.Node.Name == name {
			return true
		}
	}
	return false
}

func affinityTerms(a *corev1.Affinity) []corev1.PodAffinityTerm {
	var out []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		out = append(out, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		out = append(out, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, w.PodAffinityTerm)
		}
	}
	return out
}

// catalog: the fake cloud provider's instance types as an inline catalog (FORMAT §2.2), and the
// same types rebuilt for Karpenter's launch rule (catalog.go, launch).
func (p *SuitePass) catalog() (map[string]any, map[string]cloudprovider.InstanceTypes, error) {
	var first []suiteInstanceType
	pools := make([]string, 0, len(p.InstanceTypes))
	for np := range p.InstanceTypes {
		pools = append(pools, np)
	}
	sort.Strings(pools)
	for i, np := range pools {
		if i == 0 {
			first = p.InstanceTypes[np]
		} else if !sameTypes(first, p.InstanceTypes[np]) {
			return nil, nil, exclude("instance types differ per NodePool", "NodePools %s and %s", pools[0], np)
		}
	}
	referenced := p.referencedText()
	zones, types := map[string]bool{}, []map[string]any{}
	named := map[string]bool{}
	for _, it := range first {
		// Some specs give the fake provider two types of one name; a catalog's names are unique
		// (nodecast refuses a repeated one, as no provider lists one twice).
		if named[it.Name] {
			return nil, nil, exclude("instance types with the same name (a catalog's names are unique)", "%s", it.Name)
		}
		named[it.Name] = true
		if it.DRA && !ignoresDRA(p.Settings) {
			return nil, nil, exclude("DRA resource claims", "instance type %s has devices", it.Name)
		}
		t := map[string]any{"name": it.Name, "allocatable": quantityMap(it.Allocatable), "capacity": quantityMap(it.Capacity)}
		labels := map[string]string{}
		for _, r := range it.Requirements {
			switch r.Key {
			case corev1.LabelInstanceTypeStable, corev1.LabelTopologyZone, v1.CapacityTypeLabelKey:
				continue
			}
			switch {
			case r.Operator == corev1.NodeSelectorOpDoesNotExist:
			case r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1:
				labels[r.Key] = r.Values[0]
			case r.Operator == corev1.NodeSelectorOpIn && len(r.Values) > 1:
				// A type that offers several values of a key (the fake provider's OS list): a
				// catalog label has one. When nothing in the pass mentions the key, which one it
				// is cannot change a decision.
				if strings.Contains(referenced, `"`+r.Key+`"`) {
					return nil, nil, exclude("multi-valued instance-type requirement in use", "%s: %s %v", it.Name, r.Key, r.Values)
				}
				v := slices.Min(r.Values)
				if slices.Contains(r.Values, "linux") {
					v = "linux"
				}
				labels[r.Key] = v
			default:
				return nil, nil, exclude("instance-type requirement that is not a label", "%s: %s %s %v", it.Name, r.Key, r.Operator, r.Values)
			}
		}
		t["labels"] = labels
		var offs []map[string]any
		onDemand := -1.0
		for _, o := range it.Offerings {
			var zone, ct string
			for _, r := range o.Requirements {
				switch {
				case r.Key == corev1.LabelTopologyZone && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1:
					zone = r.Values[0]
				case r.Key == v1.CapacityTypeLabelKey && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1:
					ct = r.Values[0]
				default:
					return nil, nil, exclude("offering requirement beyond zone and capacity type", "%s: %s", it.Name, r.Key)
				}
			}
			if o.Overrides {
				return nil, nil, exclude("offering capacity or overhead overrides (the catalog has no per-offering capacity)", "%s in %s", it.Name, zone)
			}
			if ct == v1.CapacityTypeReserved {
				return nil, nil, exclude("reserved offerings", "%s in %s", it.Name, zone)
			}
			if zone == "" || ct == "" {
				return nil, nil, exclude("offering without one zone and capacity type", "%s", it.Name)
			}
			zones[zone] = true
			if ct == v1.CapacityTypeOnDemand && (onDemand < 0 || o.Price < onDemand) {
				onDemand = o.Price
			}
			offs = append(offs, map[string]any{"zone": zone, "capacityType": ct, "price": o.Price, "available": o.Available})
		}
		if onDemand < 0 && len(offs) > 0 {
			onDemand = offs[0]["price"].(float64)
		}
		t["onDemandPrice"] = max(onDemand, 0)
		t["offerings"] = offs
		types = append(types, t)
	}
	zoneList := make([]string, 0, len(zones))
	for z := range zones {
		zoneList = append(zoneList, z)
	}
	sort.Strings(zoneList)
	if len(zoneList) == 0 {
		zoneList = []string{"test-zone-1"}
	}
	its := map[string]cloudprovider.InstanceTypes{}
	for np, list := range p.InstanceTypes {
		for _, it := range list {
			its[np] = append(its[np], it.karpenter())
		}
	}
	return map[string]any{"zones": zoneList, "instanceTypes": types}, its, nil
}

func ignoresDRA(s map[string]any) bool { v, ok := s["ignoreDraRequests"].(bool); return !ok || v }

func sameTypes(a, b []suiteInstanceType) bool {
	ja, _ := yaml.Marshal(a)
	jb, _ := yaml.Marshal(b)
	return string(ja) == string(jb)
}

func quantityMap(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[string(k)] = v.String()
	}
	if _, ok := out["pods"]; !ok {
		out["pods"] = "0"
	}
	return out
}

func (it suiteInstanceType) karpenter() *cloudprovider.InstanceType {
	out := &cloudprovider.InstanceType{
		Name:         it.Name,
		Requirements: scheduling.NewNodeSelectorRequirementsWithMinValues(it.Requirements...),
		Capacity:     it.Capacity,
	}
	for _, o := range it.Offerings {
		out.Offerings = append(out.Offerings, &cloudprovider.Offering{
			Requirements: scheduling.NewNodeSelectorRequirementsWithMinValues(o.Requirements...),
			Price:        o.Price, Available: o.Available, ReservationCapacity: o.Capacity,
		})
	}
	return out
}

// referencedText: the pass's pods, NodePools and DaemonSets as JSON, to ask whether a key is used.
func (p *SuitePass) referencedText() string {
	b, _ := yaml.Marshal([]any{p.Pods, p.NodePools, p.DaemonSets, p.BoundPods})
	j, _ := yaml.YAMLToJSON(b)
	return string(j)
}

func (p *SuitePass) settings() map[string]any {
	s := map[string]any{}
	for _, k := range []string{"maxInstanceTypes", "minValuesPolicy", "preferencePolicy", "ignoreDraRequests"} {
		if v, ok := p.Settings[k]; ok && v != "" {
			s[k] = v
		}
	}
	if g, ok := p.Settings["featureGates"].(map[string]any); ok {
		gates := map[string]any{}
		for k, v := range g {
			if _, isBool := v.(bool); isBool {
				gates[k] = v
			}
		}
		s["featureGates"] = gates
	}
	if defaultSpreads(p.Settings) {
		s["schedulerConfig"] = p.Settings["schedulerConfig"]
	}
	return s
}

// manifests: objects as one multi-document YAML stream (FORMAT §3), shared by the provisioning
// passes and the disruption decisions: the API server's bookkeeping (managed fields, resource
// version, generation) is left out and a NodePool's status is dropped (NodePools are taken as
// Ready, FORMAT §3.1; checkModelled made sure or the harness says why not).
type manifests struct {
	b   strings.Builder
	err error
}

func (w *manifests) add(apiVersion, kind string, meta *metav1.ObjectMeta, obj any) {
	meta.ManagedFields, meta.ResourceVersion, meta.Generation = nil, "", 0
	body, err := yaml.Marshal(obj)
	m := map[string]any{}
	if err == nil {
		err = yaml.Unmarshal(body, &m)
	}
	m["apiVersion"], m["kind"] = apiVersion, kind
	if kind == "NodePool" {
		delete(m, "status")
	}
	if err == nil {
		body, err = yaml.Marshal(m)
	}
	if err != nil {
		w.err = err
		return
	}
	if w.b.Len() > 0 {
		w.b.WriteString("---\n")
	}
	w.b.Write(body)
}

func (w *manifests) text() (string, error) { return w.b.String(), w.err }

// objects: the cluster as Karpenter's state saw it, as manifests.
func (p *SuitePass) objects() (string, error) {
	w := &manifests{}
	add := w.add
	for i := range p.NodePools {
		np := p.NodePools[i]
		add("karpenter.sh/v1", "NodePool", &np.ObjectMeta, &np)
	}
	for _, n := range p.Nodes {
		if n.Node != nil {
			node := n.Node.DeepCopy()
			add("v1", "Node", &node.ObjectMeta, node)
		}
		if n.NodeClaim != nil {
			nc := n.NodeClaim.DeepCopy()
			add("karpenter.sh/v1", "NodeClaim", &nc.ObjectMeta, nc)
		}
	}
	for i := range p.DaemonSets {
		ds := p.DaemonSets[i]
		add("apps/v1", "DaemonSet", &ds.ObjectMeta, &ds)
	}
	p.addOwners(add)
	// The DaemonSet pods Karpenter's state keeps (overhead from the pod, not the template), unless
	// the pass has them already.
	have := map[string]bool{}
	for _, pod := range p.Pods {
		have[pod.Namespace+"/"+pod.Name] = true
	}
	for _, pod := range p.BoundPods {
		if p.inState(pod.Spec.NodeName) {
			have[pod.Namespace+"/"+pod.Name] = true
		}
	}
	for i := range p.DaemonSetPods {
		pod := p.DaemonSetPods[i]
		if !have[pod.Namespace+"/"+pod.Name] {
			if !p.inState(pod.Spec.NodeName) {
				pod.Spec.NodeName = "" // its node is gone; the pod still stands for the overhead
			}
			add("v1", "Pod", &pod.ObjectMeta, &pod)
		}
	}
	for i := range p.BoundPods {
		pod := p.BoundPods[i]
		if !p.inState(pod.Spec.NodeName) {
			// Bound to a Node that no longer exists: Karpenter's state never saw it and its
			// topology skips such pods (topology.go, countDomains: a NotFound node is skipped).
			continue
		}
		add("v1", "Pod", &pod.ObjectMeta, &pod)
	}
	for _, pod := range p.Pods {
		pod := pod.DeepCopy()
		add("v1", "Pod", &pod.ObjectMeta, pod)
	}
	return w.text()
}

// answer: Karpenter's result in the harness's form, its launches by the rule nodecast is held to.
func (p *SuitePass) answer(its map[string]cloudprovider.InstanceTypes) *ProvisionAnswer {
	a := &ProvisionAnswer{Existing: map[string]string{}, Claims: []Claim{}, Unschedulable: []string{}}
	for _, c := range p.Claims {
		claim := Claim{Pods: c.Pods, NodePool: c.NodePool, Options: c.Options}
		var opts cloudprovider.InstanceTypes
		for _, it := range its[c.NodePool] {
			if slices.Contains(c.Options, it.Name) {
				opts = append(opts, it)
			}
		}
		claim.Launch = launch(opts, scheduling.NewNodeSelectorRequirementsWithMinValues(c.Requirements...), false)
		a.Claims = append(a.Claims, claim)
	}
	sortClaims(a.Claims)
	for pod, node := range p.Existing {
		a.Existing[pod] = node
	}
	for pod := range p.Errors {
		a.Unschedulable = append(a.Unschedulable, pod)
	}
	sort.Strings(a.Unschedulable)
	return a
}

func (p *SuitePass) optionPrices(its map[string]cloudprovider.InstanceTypes) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, c := range p.Claims {
		out[strings.Join(c.Pods, ",")] = cheapestOfferings(its[c.NodePool], c.Requirements)
	}
	return out
}

// cheapestOfferings: each type's price as Karpenter's OrderByPrice sees it for a NodeClaim with
// these requirements (its cheapest launchable compatible offering; MaxFloat64 when none is).
func cheapestOfferings(its cloudprovider.InstanceTypes, requirements []v1.NodeSelectorRequirementWithMinValues) map[string]float64 {
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(requirements...)
	prices := map[string]float64{}
	for _, it := range its {
		price := math.MaxFloat64
		for _, o := range it.Offerings {
			if o.Launchable() && reqs.IsCompatible(o.Requirements, scheduling.AllowUndefinedWellKnownLabels) && o.Price < price {
				price = o.Price
			}
		}
		prices[it.Name] = price
	}
	return prices
}

// TruncationTie: nodecast's claims hold the same pods as Karpenter's and differ only in options
// that Karpenter's MaxInstanceTypes cut fell among: every option in one list but not the other
// costs exactly the most expensive kept option. Karpenter orders options with sort.Slice by price
// alone (cloudprovider/types.go, OrderByPrice: unstable, no tie-break), nodecast by price then
// name, so which of the tied types survive the cut differs.
func (c *SuiteCase) TruncationTie(n *ProvisionAnswer) bool {
	if c.limit == 0 || len(n.Claims) != len(c.Karpenter.Claims) {
		return false
	}
	for _, kc := range c.Karpenter.Claims {
		key := strings.Join(kc.Pods, ",")
		var nc *Claim
		for i := range n.Claims {
			if strings.Join(n.Claims[i].Pods, ",") == key {
				nc = &n.Claims[i]
			}
		}
		if nc == nil || nc.NodePool != kc.NodePool {
			return false
		}
		if slices.Equal(nc.Options, kc.Options) {
			continue
		}
		prices := c.prices[key]
		if len(kc.Options) != c.limit || len(nc.Options) != c.limit || prices == nil {
			return false
		}
		top := 0.0
		for _, o := range kc.Options {
			top = max(top, prices[o])
		}
		for _, o := range append(slices.Clone(nc.Options), kc.Options...) {
			if slices.Contains(nc.Options, o) != slices.Contains(kc.Options, o) && prices[o] != top {
				return false
			}
		}
	}
	return true
}

// expectation: Karpenter's answer as a FORMAT §5.3 `expect`.
func expectation(k *ProvisionAnswer, pending []*corev1.Pod) map[string]any {
	pods := map[string]any{}
	for _, pod := range pending {
		// The conformance runner names pods without their namespace (FORMAT §5.3).
		key, name := pod.Namespace+"/"+pod.Name, pod.Name
		if node, ok := k.Existing[key]; ok {
			pods[name] = map[string]any{"scheduled": true, "existingNode": node}
			continue
		}
		if slices.Contains(k.Unschedulable, key) {
			pods[name] = map[string]any{"scheduled": false}
		}
	}
	var same [][]string
	for _, c := range k.Claims {
		var names []string
		for _, key := range c.Pods {
			_, name, _ := strings.Cut(key, "/")
			names = append(names, name)
			e := map[string]any{"scheduled": true, "onExistingNode": false, "nodePool": c.NodePool}
			if c.Launch != nil {
				e["capacityType"] = c.Launch.CapacityType
				types := make([]string, 0, len(c.Launch.Types))
				for t := range c.Launch.Types {
					types = append(types, t)
				}
				sort.Strings(types)
				e["instanceTypes"] = types
			}
			pods[name] = e
		}
		if len(names) > 1 {
			same = append(same, names)
		}
	}
	e := map[string]any{"newNodeClaims": len(k.Claims), "pods": pods}
	if len(same) > 0 {
		e["sameNode"] = same
	}
	return e
}

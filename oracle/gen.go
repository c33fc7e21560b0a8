package main

// Random scenario generator: GPU-heavy clusters like real platform teams' pools. Each scenario is
// a FORMAT.md file, so a disagreement can be rerun alone (`oracle show -kind K -seed N`).

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

var dataPath = func() string {
	if v := os.Getenv("NODECAST_AWS_DATA"); v != "" {
		return v
	}
	return "../../shared/data/aws/instance-types.json"
}()

type awsType struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Allocatable map[string]string `json:"allocatable"`
	Price       float64           `json:"onDemandPriceUSDPerHour"`
}

var awsTypes map[string]*awsType

func loadAWS() error {
	if awsTypes != nil {
		return nil
	}
	b, err := os.ReadFile(dataPath)
	if err != nil {
		return fmt.Errorf("instance-type facts for the generator (set NODECAST_AWS_DATA): %w", err)
	}
	var list []*awsType
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	awsTypes = map[string]*awsType{}
	for _, t := range list {
		awsTypes[t.Name] = t
	}
	return nil
}

func writeGenerated(dir, kind string, seed int64) (string, error) {
	text, err := Generate(kind, seed)
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, fmt.Sprintf("%s-%d.yaml", kind, seed))
	return f, os.WriteFile(f, []byte(text), 0o644)
}

func cmdGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	kind := fs.String("kind", "provision", "provision, disrupt, gates, reserved, rdisrupt, drift, prices or pdisrupt")
	seed := fs.Int64("seed", 1, "seed")
	out := fs.String("o", "", "output file (default stdout)")
	_ = fs.Parse(args)
	text, err := Generate(*kind, *seed)
	if err != nil {
		return err
	}
	if *out == "" {
		fmt.Print(text)
		return nil
	}
	return os.WriteFile(*out, []byte(text), 0o644)
}

type gen struct {
	r     *rand.Rand
	docs  []string
	pools []pool
	now   time.Time
	zones []string
	// reserved scenarios (gen_reserved.go): may turn an existing node into a reserved one. Nil for
	// the other kinds, which therefore draw exactly what they drew before.
	nodeHook func(labels map[string]any, p pool)
	// reserved scenarios: when a node's NodeClaim should be deleting already, the time its
	// deletion started (nil for the other kinds, and for most nodes).
	deletingHook func() *time.Time
}

type pool struct {
	name  string
	gpu   bool
	taint bool
	types []string // plausible types for existing nodes
	cts   []string
	label string // value of team label in template, "" = none
	// the EC2NodeClass the pool references ("" = default)
	nodeClass string
}

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }
func (g *gen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *gen) add(o map[string]any) {
	b, err := yaml.Marshal(o)
	if err != nil {
		panic(err)
	}
	g.docs = append(g.docs, string(b))
}

var gpuFamilies = map[string][]string{
	"g5":   {"g5.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.12xlarge"},
	"g6":   {"g6.xlarge", "g6.2xlarge", "g6.12xlarge"},
	"g4dn": {"g4dn.xlarge", "g4dn.2xlarge", "g4dn.12xlarge"},
	"g6e":  {"g6e.xlarge", "g6e.2xlarge"},
}
var gpuNames = map[string]string{"g5": "a10g", "g6": "l4", "g4dn": "t4", "g6e": "l40s"}
var cpuFamilies = map[string][]string{
	"m5": {"m5.large", "m5.xlarge", "m5.2xlarge", "m5.4xlarge"},
	"c6a": {"c6a.large", "c6a.xlarge", "c6a.2xlarge"},
	"r6i": {"r6i.large", "r6i.xlarge", "r6i.2xlarge"},
	"m6i": {"m6i.large", "m6i.xlarge", "m6i.2xlarge", "m6i.4xlarge"},
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (g *gen) subset(xs []string, min int) []string {
	p := g.r.Perm(len(xs))
	n := min + g.r.Intn(len(xs)-min+1)
	var out []string
	for _, i := range p[:n] {
		out = append(out, xs[i])
	}
	sort.Strings(out)
	return out
}

func req(key, op string, values ...string) map[string]any {
	m := map[string]any{"key": key, "operator": op}
	if len(values) > 0 {
		m["values"] = values
	}
	return m
}

func poolName(gpu bool, i int) string {
	return fmt.Sprintf("%s-%d", map[bool]string{true: "gpu", false: "general"}[gpu], i)
}

// families draws one or more GPU (or CPU) families for pool p, adds their types to it and
// returns them.
func (g *gen) families(p *pool) []string {
	fams := gpuFamilies
	if !p.gpu {
		fams = cpuFamilies
	}
	chosen := g.subset(keys(fams), 1)
	for _, f := range chosen {
		p.types = append(p.types, fams[f]...)
	}
	return chosen
}

func (g *gen) nodePool(i int, disrupt bool) {
	gpu := i == 0 || g.chance(0.4)
	p := pool{name: poolName(gpu, i), gpu: gpu}
	var reqs []any
	chosen := g.families(&p)
	switch g.r.Intn(4) {
	case 0:
		r := req("karpenter.k8s.aws/instance-family", "In", chosen...)
		if len(chosen) >= 2 && g.chance(0.4) {
			r["minValues"] = 2
		}
		reqs = append(reqs, r)
	case 1:
		if gpu {
			var names []string
			for _, f := range chosen {
				names = append(names, gpuNames[f])
			}
			reqs = append(reqs, req("karpenter.k8s.aws/instance-gpu-name", "In", names...))
			reqs = append(reqs, req("karpenter.k8s.aws/instance-gpu-count", "Lt", g.pick("2", "5", "9")))
		} else {
			reqs = append(reqs, req("karpenter.k8s.aws/instance-category", "In", g.pick("m", "c", "r"), g.pick("m", "c")))
			reqs = append(reqs, req("karpenter.k8s.aws/instance-generation", "Gt", g.pick("4", "5")))
			p.types = []string{"m5.large", "m6i.xlarge", "c6a.xlarge"}
		}
	case 2:
		if gpu {
			reqs = append(reqs, req("karpenter.k8s.aws/instance-category", "In", "g"))
			reqs = append(reqs, req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"))
		} else {
			reqs = append(reqs, req("karpenter.k8s.aws/instance-family", "In", chosen...))
		}
	default:
		reqs = append(reqs, req("karpenter.k8s.aws/instance-family", "In", chosen...))
		reqs = append(reqs, req("karpenter.k8s.aws/instance-size", "NotIn", "metal", "24xlarge", "48xlarge"))
	}
	p.cts = []string{"on-demand"}
	switch g.r.Intn(3) {
	case 0:
		p.cts = []string{"spot", "on-demand"}
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", p.cts...))
	case 1:
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", "on-demand"))
	default:
		if g.chance(0.5) {
			p.cts = []string{"spot", "on-demand"}
		} else {
			reqs = append(reqs, req("karpenter.sh/capacity-type", "In", "on-demand"))
		}
	}
	reqs = append(reqs, req("kubernetes.io/arch", "In", "amd64"))
	if g.chance(0.2) {
		reqs = append(reqs, req("topology.kubernetes.io/zone", "In", g.subset(g.zones, 2)...))
	}
	spec := map[string]any{"requirements": reqs, "nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}
	if gpu && g.chance(0.7) {
		p.taint = true
		spec["taints"] = []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}
	}
	tmpl := map[string]any{"spec": spec}
	if g.chance(0.3) {
		p.label = g.pick("ml", "web", "batch")
		tmpl["metadata"] = map[string]any{"labels": map[string]any{"example.com/team": p.label}}
	}
	np := map[string]any{"name": p.name}
	s := map[string]any{"template": tmpl}
	if g.chance(0.5) {
		s["weight"] = 1 + g.r.Intn(4)*10
	}
	if g.chance(0.6) {
		lim := map[string]any{}
		if gpu {
			lim["nvidia.com/gpu"] = fmt.Sprint(2 + g.r.Intn(14))
		}
		if g.chance(0.5) || !gpu {
			lim["cpu"] = fmt.Sprint(16 + g.r.Intn(200))
		}
		s["limits"] = lim
	}
	if disrupt {
		d := map[string]any{}
		d["consolidationPolicy"] = g.pick("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty", "Balanced")
		d["consolidateAfter"] = g.pick("0s", "0s", "5m", "30m", "2h", "Never")
		switch g.r.Intn(5) {
		case 0:
			d["budgets"] = []any{map[string]any{"nodes": g.pick("1", "2", "0", "50%")}}
		case 1:
			d["budgets"] = []any{map[string]any{"nodes": "0", "schedule": g.pick("0 9 * * 1-5", "0 0 * * *", "30 11 * * *"), "duration": g.pick("8h", "1h", "30m")}, map[string]any{"nodes": "100%"}}
		case 2:
			d["budgets"] = []any{map[string]any{"nodes": "100%", "reasons": []any{"Empty"}}, map[string]any{"nodes": g.pick("0", "1"), "reasons": []any{"Underutilized"}}}
		case 3:
			d["budgets"] = []any{map[string]any{"nodes": "100%"}}
		}
		s["disruption"] = d
		if g.chance(0.15) {
			spec["expireAfter"] = g.pick("240h", "720h")
		}
	}
	g.add(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": np, "spec": s})
	g.pools = append(g.pools, p)
}

var cpus = []string{"100m", "250m", "500m", "1", "1500m", "2", "3", "4", "7"}
var mems = []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "6Gi", "12Gi"}

// podSpec makes a pod template for app `app`; gpu > 0 asks for GPUs.
func (g *gen) podSpec(app string, gpu int, replicas int) map[string]any {
	res := map[string]any{"cpu": g.pick(cpus...), "memory": g.pick(mems...)}
	if gpu > 0 {
		res["nvidia.com/gpu"] = fmt.Sprint(gpu)
	}
	spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{"requests": res}}}}
	if gpu > 0 || g.chance(0.2) {
		spec["tolerations"] = []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}
	}
	sel := map[string]any{}
	if g.chance(0.15) {
		sel["karpenter.sh/capacity-type"] = g.pick("on-demand", "spot")
	}
	if g.chance(0.1) {
		sel["topology.kubernetes.io/zone"] = g.pick(g.zones...)
	}
	if gpu > 0 && g.chance(0.2) {
		sel["karpenter.k8s.aws/instance-gpu-name"] = g.pick("a10g", "l4", "t4")
	}
	if g.chance(0.1) {
		sel["example.com/team"] = g.pick("ml", "web", "batch")
	}
	if len(sel) > 0 {
		spec["nodeSelector"] = sel
	}
	aff := map[string]any{}
	if g.chance(0.2) {
		na := map[string]any{}
		if g.chance(0.5) {
			na["requiredDuringSchedulingIgnoredDuringExecution"] = map[string]any{"nodeSelectorTerms": []any{
				map[string]any{"matchExpressions": []any{req("karpenter.k8s.aws/instance-family", "In", g.subset([]string{"g5", "g6", "g4dn", "m5", "c6a", "m6i", "r6i"}, 1)...)}},
				map[string]any{"matchExpressions": []any{req("karpenter.k8s.aws/instance-category", "In", "g", "m")}},
			}}
		} else {
			na["preferredDuringSchedulingIgnoredDuringExecution"] = []any{map[string]any{"weight": 1 + g.r.Intn(100), "preference": map[string]any{"matchExpressions": []any{
				req(g.pick("karpenter.sh/capacity-type", "topology.kubernetes.io/zone", "karpenter.k8s.aws/instance-family"), "In", g.pick("spot", g.zones[0], "g5", "m5"))}}}}
		}
		aff["nodeAffinity"] = na
	}
	if replicas > 1 && g.chance(0.15) {
		term := map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"app": app}}, "topologyKey": g.pick("kubernetes.io/hostname", "topology.kubernetes.io/zone")}
		if g.chance(0.5) {
			aff["podAntiAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{term}}
		} else {
			aff["podAntiAffinity"] = map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"weight": 50, "podAffinityTerm": term}}}
		}
	} else if g.chance(0.08) {
		aff["podAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "app-0"}}, "topologyKey": "topology.kubernetes.io/zone"}}}
	}
	if len(aff) > 0 {
		spec["affinity"] = aff
	}
	if replicas > 1 && g.chance(0.3) {
		spec["topologySpreadConstraints"] = []any{map[string]any{
			"maxSkew": 1 + g.r.Intn(2), "topologyKey": g.pick("topology.kubernetes.io/zone", "topology.kubernetes.io/zone", "kubernetes.io/hostname", "karpenter.sh/capacity-type"),
			"whenUnsatisfiable": g.pick("DoNotSchedule", "DoNotSchedule", "ScheduleAnyway"), "labelSelector": map[string]any{"matchLabels": map[string]any{"app": app}}}}
	}
	return spec
}

func (g *gen) gpuCount() int {
	if g.chance(0.55) {
		return []int{1, 1, 1, 2, 4, 8}[g.r.Intn(6)]
	}
	return 0
}

func (g *gen) workloads(n int, namespace string) {
	for i := 0; i < n; i++ {
		app := fmt.Sprintf("app-%d", i)
		gpu := g.gpuCount()
		meta := map[string]any{"name": app, "namespace": namespace}
		tmeta := map[string]any{"labels": map[string]any{"app": app}}
		switch g.r.Intn(3) {
		case 0:
			reps := 1 + g.r.Intn(5)
			g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": map[string]any{"replicas": reps,
				"selector": map[string]any{"matchLabels": map[string]any{"app": app}}, "template": map[string]any{"metadata": tmeta, "spec": g.podSpec(app, gpu, reps)}}})
		case 1:
			par := 1 + g.r.Intn(4)
			ps := g.podSpec(app, gpu, par)
			ps["restartPolicy"] = "Never"
			g.add(map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": map[string]any{"parallelism": par, "template": map[string]any{"metadata": tmeta, "spec": ps}}})
		default:
			g.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": app, "namespace": namespace, "labels": map[string]any{"app": app}}, "spec": g.podSpec(app, gpu, 1)})
		}
	}
}

func (g *gen) daemonSets() {
	if g.chance(0.5) {
		g.add(map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": "log-agent", "namespace": "kube-system"}, "spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "log-agent"}}, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "log-agent"}},
				"spec": map[string]any{"tolerations": []any{map[string]any{"operator": "Exists"}}, "containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{"requests": map[string]any{"cpu": "200m", "memory": "256Mi"}}}}}}}})
	}
	if g.chance(0.3) {
		g.add(map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": "dcgm-exporter", "namespace": "kube-system"}, "spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "dcgm"}}, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "dcgm"}},
				"spec": map[string]any{"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists"}},
					"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{req("karpenter.k8s.aws/instance-gpu-count", "Exists")}}}}}},
					"containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "512Mi"}}}}}}}})
	}
}

func milli(q string) int64 {
	var v float64
	if strings.HasSuffix(q, "m") {
		fmt.Sscanf(strings.TrimSuffix(q, "m"), "%f", &v)
		return int64(v)
	}
	fmt.Sscanf(q, "%f", &v)
	return int64(v * 1000)
}

func mib(q string) int64 {
	var v int64
	switch {
	case strings.HasSuffix(q, "Mi"):
		fmt.Sscanf(strings.TrimSuffix(q, "Mi"), "%d", &v)
	case strings.HasSuffix(q, "Gi"):
		fmt.Sscanf(strings.TrimSuffix(q, "Gi"), "%d", &v)
		v *= 1024
	case strings.HasSuffix(q, "Ki"):
		fmt.Sscanf(strings.TrimSuffix(q, "Ki"), "%d", &v)
		v /= 1024
	}
	return v
}

// existingNode adds a managed node of pool p with some bound pods; returns its name.
func (g *gen) existingNode(i int, p pool, disrupt bool) {
	t := awsTypes[g.pick(p.types...)]
	if t == nil {
		return
	}
	name := fmt.Sprintf("node-%d", i)
	zone := g.pick(g.zones...)
	ct := g.pick(p.cts...)
	labels := map[string]any{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels["topology.kubernetes.io/zone"] = zone
	labels["topology.kubernetes.io/region"] = "us-east-1"
	labels["karpenter.sh/capacity-type"] = ct
	labels["karpenter.sh/nodepool"] = p.name
	labels["kubernetes.io/hostname"] = name
	if p.label != "" {
		labels["example.com/team"] = p.label
	}
	if g.nodeHook != nil {
		g.nodeHook(labels, p)
	}
	nodeClass := p.nodeClass
	if nodeClass == "" {
		nodeClass = "default"
	}
	age := time.Duration(1+g.r.Intn(24*25)) * time.Hour
	if g.chance(0.3) {
		age = time.Duration(5+g.r.Intn(120)) * time.Minute
	}
	created := g.now.Add(-age)
	node := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name, "labels": labels, "creationTimestamp": created.Format(time.RFC3339)},
		"status": map[string]any{"allocatable": t.Allocatable}}
	if p.taint {
		node["spec"] = map[string]any{"taints": []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}}
	}
	if disrupt && g.chance(0.05) {
		node["metadata"].(map[string]any)["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
	}
	g.add(node)
	var deleting *time.Time
	if g.deletingHook != nil {
		deleting = g.deletingHook()
	}
	if disrupt || deleting != nil {
		st := map[string]any{"nodeName": name}
		if disrupt && g.chance(0.6) {
			st["lastPodEventTime"] = g.now.Add(-time.Duration(1+g.r.Intn(300)) * time.Minute).Format(time.RFC3339)
		}
		meta := map[string]any{"name": name + "-claim", "creationTimestamp": created.Format(time.RFC3339), "labels": map[string]any{"karpenter.sh/nodepool": p.name}}
		if deleting != nil {
			// A NodeClaim Karpenter is already deleting (a disruption or expiration of an earlier
			// pass): its termination finalizer holds it while the node drains.
			meta["deletionTimestamp"] = deleting.Format(time.RFC3339)
			meta["finalizers"] = []any{"karpenter.sh/termination"}
		}
		g.add(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": meta,
			"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": nodeClass}}, "status": st})
	}
	// Bound pods that fit: fill a random fraction of cpu, memory and GPUs.
	cpuLeft, memLeft := milli(t.Allocatable["cpu"])*8/10, mib(t.Allocatable["memory"])*8/10
	gpuLeft := int64(0)
	if v, ok := t.Allocatable["nvidia.com/gpu"]; ok {
		fmt.Sscanf(v, "%d", &gpuLeft)
	}
	n := g.r.Intn(4)
	if disrupt && g.chance(0.25) {
		n = 0
	}
	for j := 0; j < n; j++ {
		c := int64(100 + g.r.Intn(int(max(cpuLeft/2, 101))))
		m := int64(64 + g.r.Intn(int(max(memLeft/2, 65))))
		if c > cpuLeft || m > memLeft {
			break
		}
		cpuLeft -= c
		memLeft -= m
		res := map[string]any{"cpu": fmt.Sprintf("%dm", c), "memory": fmt.Sprintf("%dMi", m)}
		if gpuLeft > 0 && g.chance(0.6) {
			res["nvidia.com/gpu"] = "1"
			gpuLeft--
		}
		app := fmt.Sprintf("svc-%d", g.r.Intn(3))
		meta := map[string]any{"name": fmt.Sprintf("%s-%s-%d", app, name, j), "namespace": "prod", "labels": map[string]any{"app": app}}
		if disrupt && g.chance(0.07) {
			meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
		}
		spec := map[string]any{"nodeName": name, "containers": []any{map[string]any{"name": "c", "image": "x", "resources": map[string]any{"requests": res}}},
			"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}}
		g.add(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
	}
}

// disruptScenario is the `disrupt` scenario of seed, parsed: the base that the dradisrupt,
// repair and drift kinds add their objects and settings to.
func disruptScenario(seed int64) (map[string]any, error) {
	base, err := Generate("disrupt", seed)
	if err != nil {
		return nil, err
	}
	var sc map[string]any
	if err := yaml.Unmarshal([]byte(base), &sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// Generate returns the scenario text for (kind, seed).
func Generate(kind string, seed int64) (string, error) {
	if kind == "gates" {
		return GenerateGates(seed)
	}
	if kind == "sdrift" {
		return GenerateStaticDrift(seed)
	}
	if kind == "drift" {
		return GenerateDrift(seed)
	}
	if kind == "dra" {
		return GenerateDRA(seed)
	}
	if kind == "repair" {
		return GenerateRepair(seed)
	}
	if kind == "dradisrupt" {
		return GenerateDRADisrupt(seed)
	}
	if kind == "static" {
		return GenerateStatic(seed)
	}
	if kind == "buffer" {
		return GenerateBuffer(seed)
	}
	if err := loadAWS(); err != nil {
		return "", err
	}
	if kind == "reserved" || kind == "rdisrupt" {
		return generateReserved(kind, seed)
	}
	if kind == "prices" || kind == "pdisrupt" {
		return generatePrices(kind, seed)
	}
	return generateBasic(kind, kind, seed, seed*7919+map[string]int64{"provision": 1, "disrupt": 2}[kind], nil)
}

// drawCatalog sets the zones and draws the catalog: the embedded AWS one, or (one time in five)
// with two zones at most and a spot type and a zone's capacity type unavailable.
func (g *gen) drawCatalog() any {
	g.zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	catalog := any("aws-us-east-1")
	if g.chance(0.2) {
		c := map[string]any{"source": "aws-us-east-1"}
		if g.chance(0.5) {
			g.zones = g.zones[:2]
			c["zones"] = g.zones
		}
		c["unavailable"] = []any{map[string]any{"instanceType": g.pick("g5.xlarge", "g6.xlarge", "m5.large", "c6a.large"), "capacityType": "spot"},
			map[string]any{"zone": g.zones[0], "capacityType": g.pick("spot", "on-demand")}}
		catalog = c
	}
	return catalog
}

// generateBasic is the provision or disrupt (`kind`) generator, scenario `<name>-<seed>` from
// random stream `stream`; `extra` adds documents after the workloads (nil for the original kinds,
// which so draw exactly what they drew before).
func generateBasic(name, kind string, seed, stream int64, extra func(g *gen)) (string, error) {
	g := &gen{r: rand.New(rand.NewSource(stream)), now: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)}
	catalog := g.drawCatalog()
	disrupt := kind == "disrupt"
	nPools := 1 + g.r.Intn(3)
	for i := 0; i < nPools; i++ {
		g.nodePool(i, disrupt)
	}
	g.daemonSets()
	g.existingNodes(disrupt, 3, 6)
	if disrupt {
		if g.chance(0.4) {
			g.add(map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": "svc-pdb", "namespace": "prod"},
				"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": fmt.Sprintf("svc-%d", g.r.Intn(3))}}, g.pick("minAvailable", "maxUnavailable"): g.r.Intn(2)}})
		}
		if g.chance(0.2) {
			g.workloads(1+g.r.Intn(2), "pending")
		}
	} else {
		g.workloads(1+g.r.Intn(8), "default")
	}
	if extra != nil {
		extra(g)
	}
	sc := g.scenario(name, seed, kind, catalog)
	if disrupt {
		sc["clock"] = map[string]any{"now": g.now.Format(time.RFC3339)}
		if g.chance(0.2) {
			sc["settings"] = map[string]any{"spotToSpotConsolidation": true}
		}
	} else if g.chance(0.15) {
		k := g.pick("minValuesPolicy", "preferencePolicy")
		sc["settings"] = map[string]any{k: map[string]string{"minValuesPolicy": "BestEffort", "preferencePolicy": "Ignore"}[k]}
	}
	return marshalScenario(sc)
}

// existingNodes adds fewer than `few` nodes to a provisioning scenario, 2 to `2+more-1` to a
// disruption one, each in a random NodePool.
func (g *gen) existingNodes(disrupt bool, few, more int) {
	n := g.r.Intn(few)
	if disrupt {
		n = 2 + g.r.Intn(more)
	}
	for i := 0; i < n; i++ {
		g.existingNode(i, g.pools[g.r.Intn(len(g.pools))], disrupt)
	}
}

// scenario is the FORMAT.md document of generated scenario `<name>-<seed>` (`oracle gen -kind
// name`), a `kind` (provision or disrupt) scenario on `catalog` holding the generated objects.
func (g *gen) scenario(name string, seed int64, kind string, catalog any) map[string]any {
	return map[string]any{
		"name":        fmt.Sprintf("%s-%d", name, seed),
		"description": fmt.Sprintf("generated by oracle gen -kind %s -seed %d", name, seed),
		"reference":   "generated",
		"kind":        kind,
		"catalog":     catalog,
		"objects":     strings.Join(g.docs, "---\n"),
		"expect":      map[string]any{},
	}
}

func marshalScenario(sc map[string]any) (string, error) {
	b, err := yaml.Marshal(sc)
	return string(b), err
}

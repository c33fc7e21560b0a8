package main

// Generated scenarios for Karpenter v1.15's StaticCapacity and CapacityBuffer gates (issue 28),
// each on its own random stream over the provisioning generator (so the other kinds draw what
// they drew before):
//   - `static`: 1–2 static NodePools (`spec.replicas` 0–4; GPU or CPU families, capacity types,
//     sometimes a zone, a size, a taint, `limits.nodes`: the CRD admits no other limit on a
//     static pool) beside the ordinary pools, 0–3
//     existing nodes of theirs (fewer or more than the replicas), sometimes a Deployment that
//     selects the static pools' label (it can go nowhere else). StaticCapacity on for 3 seeds
//     in 4. Karpenter's static provisioning controller runs on the Karpenter side (static.go).
//   - `buffer`: 1–3 CapacityBuffers on a PodTemplate (`replicas`, `limits` or both) or on a
//     Deployment (`scalableRef` with `replicas`, `percentage`, `limits`), sometimes naming a
//     template that does not exist (the buffer is not ready and adds nothing). CapacityBuffer on
//     for 3 seeds in 4. Karpenter's capacitybuffer controller and virtual pods (buffer.go).

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// GenerateStatic returns the `static` scenario text for seed.
func GenerateStatic(seed int64) (string, error) {
	return withGate("static", seed, seed*7919+13, fmt.Sprintf("StaticCapacity=%t", seed%4 != 3), func(g *gen) {
		n := 1 + g.r.Intn(2)
		for i := 0; i < n; i++ {
			g.staticPool(i)
		}
		defer func() {
			// One seed in 5: the static pools alone (Karpenter's provisioner has no dynamic
			// NodePool and runs no pass). Decided by the seed, not the stream, so the other seeds'
			// scenarios stay what they were.
			if seed%5 == 2 {
				g.onlyStaticPools()
			}
		}()
		if g.chance(0.5) {
			reps := 1 + g.r.Intn(4)
			spec := g.podSpec("static-app", 0, reps)
			spec["nodeSelector"] = map[string]any{"example.com/team": "static"}
			spec["tolerations"] = []any{map[string]any{"operator": "Exists"}}
			g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "static-app", "namespace": "default"},
				"spec": map[string]any{"replicas": reps, "selector": map[string]any{"matchLabels": map[string]any{"app": "static-app"}},
					"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "static-app"}}, "spec": spec}}})
		}
	})
}

// GenerateBuffer returns the `buffer` scenario text for seed.
func GenerateBuffer(seed int64) (string, error) {
	return withGate("buffer", seed, seed*7919+17, fmt.Sprintf("CapacityBuffer=%t", seed%4 != 3), func(g *gen) {
		n := 1 + g.r.Intn(3)
		for i := 0; i < n; i++ {
			g.buffer(i)
		}
	})
}

// withGate: a provisioning scenario of stream `stream` plus `extra`, with `featureGates: gates`.
func withGate(name string, seed, stream int64, gates string, extra func(g *gen)) (string, error) {
	if err := loadAWS(); err != nil {
		return "", err
	}
	base, err := generateBasic(name, "provision", seed, stream, extra)
	if err != nil {
		return "", err
	}
	var sc map[string]any
	if err := yaml.Unmarshal([]byte(base), &sc); err != nil {
		return "", err
	}
	settings, _ := sc["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
	}
	settings["featureGates"] = gates
	sc["settings"] = settings
	return marshalScenario(sc)
}

// staticPool adds static NodePool `static-<i>` and maybe existing nodes of it.
func (g *gen) staticPool(i int) {
	gpu := g.chance(0.5)
	p := pool{name: fmt.Sprintf("static-%d", i), gpu: gpu, label: "static"}
	fams := g.families(&p)
	reqs := []any{req("karpenter.k8s.aws/instance-family", "In", fams...)}
	p.cts = []string{"on-demand"}
	if g.chance(0.4) {
		p.cts = []string{"spot", "on-demand"}
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", p.cts...))
	} else {
		reqs = append(reqs, req("karpenter.sh/capacity-type", "In", "on-demand"))
	}
	if g.chance(0.3) {
		reqs = append(reqs, req("topology.kubernetes.io/zone", "In", g.pick(g.zones...)))
	}
	if g.chance(0.2) {
		reqs = append(reqs, req("karpenter.k8s.aws/instance-size", "In", g.pick("xlarge", "2xlarge", "12xlarge")))
	}
	spec := map[string]any{"requirements": reqs, "nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}
	if gpu && g.chance(0.5) {
		p.taint = true
		spec["taints"] = []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}
	}
	s := map[string]any{"replicas": g.r.Intn(5), "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"example.com/team": "static"}}, "spec": spec}}
	lim := map[string]any{}
	if g.chance(0.35) {
		lim["nodes"] = fmt.Sprint(1 + g.r.Intn(3))
	}
	if len(lim) > 0 {
		s["limits"] = lim
	}
	g.add(map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": p.name}, "spec": s})
	for j := g.r.Intn(4); j > 0; j-- {
		g.existingNode(10+10*i+j, p, false)
	}
}

// onlyStaticPools drops every NodePool but the static ones.
func (g *gen) onlyStaticPools() {
	kept := g.docs[:0]
	for _, d := range g.docs {
		var o map[string]any
		if yaml.Unmarshal([]byte(d), &o) == nil && o["kind"] == "NodePool" {
			if spec, _ := o["spec"].(map[string]any); spec["replicas"] == nil {
				continue
			}
		}
		kept = append(kept, d)
	}
	g.docs = kept
}

// buffer adds CapacityBuffer `buffer-<i>` and what it refers to.
func (g *gen) buffer(i int) {
	app := fmt.Sprintf("buf-%d", i)
	meta := map[string]any{"name": fmt.Sprintf("buffer-%d", i), "namespace": "default", "uid": fmt.Sprintf("uid-%d", i)}
	spec := map[string]any{}
	limits := func() {
		switch g.r.Intn(3) {
		case 0:
			spec["limits"] = map[string]any{"cpu": g.pick("1", "2", "4", "16")}
		case 1:
			spec["limits"] = map[string]any{"memory": g.pick("2Gi", "8Gi", "32Gi")}
		default:
			spec["limits"] = map[string]any{"nvidia.com/gpu": g.pick("1", "2", "4")}
		}
	}
	gpu := g.gpuCount()
	if g.chance(0.5) {
		tmpl := fmt.Sprintf("tmpl-%d", i)
		if g.chance(0.1) {
			spec["podTemplateRef"] = map[string]any{"name": "missing"}
		} else {
			spec["podTemplateRef"] = map[string]any{"name": tmpl}
		}
		g.add(map[string]any{"apiVersion": "v1", "kind": "PodTemplate", "metadata": map[string]any{"name": tmpl, "namespace": "default"},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": app}}, "spec": g.podSpec(app, gpu, 2)}})
		switch g.r.Intn(3) {
		case 0:
			spec["replicas"] = g.r.Intn(4)
		case 1:
			limits()
		default:
			spec["replicas"] = 1 + g.r.Intn(4)
			limits()
		}
	} else {
		dep := fmt.Sprintf("buf-dep-%d", i)
		reps := 1 + g.r.Intn(4)
		g.add(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": dep, "namespace": "default"},
			"spec": map[string]any{"replicas": reps, "selector": map[string]any{"matchLabels": map[string]any{"app": app}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": app}}, "spec": g.podSpec(app, gpu, reps)}}})
		spec["scalableRef"] = map[string]any{"apiGroup": "apps", "kind": "Deployment", "name": dep}
		switch g.r.Intn(4) {
		case 0:
			spec["replicas"] = g.r.Intn(3)
		case 1:
			spec["percentage"] = []int{10, 50, 100, 150}[g.r.Intn(4)]
		case 2:
			spec["percentage"] = []int{25, 50}[g.r.Intn(2)]
			spec["replicas"] = 1 + g.r.Intn(2)
		default:
			limits()
		}
	}
	g.add(map[string]any{"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer", "metadata": meta, "spec": spec})
}

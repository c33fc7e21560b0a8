package main

// Drift scenarios: a random disruption scenario (Generate "disrupt") whose NodeClaims carry the
// NodePool template hash they were created with, after which NodePools may have changed their
// template (a label or annotation) or tightened their requirements (a zone excluded). Karpenter
// then marks NodeClaims drifted (NodePoolDrifted, RequirementsDrifted) and its Drift method
// replaces one; nodecast has to find the same ones and make the same command.

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// templateHash is Karpenter's hash of a NodePool document as written (expireAfter defaulted).
func templateHash(doc map[string]any) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	np := &v1.NodePool{}
	if err := json.Unmarshal(b, np); err != nil {
		return "", err
	}
	if np.Spec.Template.Spec.ExpireAfter.Duration == nil && np.Spec.Template.Spec.ExpireAfter.Raw == nil {
		np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("720h")
	}
	return np.Hash(), nil
}

func sub(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// GenerateDrift returns the drift scenario text for seed.
func GenerateDrift(seed int64) (string, error) {
	return generateDrift(seed, false)
}

// GenerateStaticDrift returns the `sdrift` scenario text for seed: a drift scenario some of
// whose NodePools are static (`spec.replicas` about their node count), so their drifted
// NodeClaims are StaticDrift's (staticdrift.go): budgets, scale-down first, `limits.nodes`, and
// TerminateFirstDrift on in a third of the seeds.
func GenerateStaticDrift(seed int64) (string, error) {
	return generateDrift(seed, true)
}

// makeStatic turns NodePool document d with `nodes` nodes static: replicas about its node count
// (sometimes one fewer: scale-down first; one more), only `limits.nodes` (the CRD admits no
// other limit and no weight beside replicas).
func makeStatic(d map[string]any, nodes int, r *rand.Rand) {
	spec := sub(d, "spec")
	delete(spec, "weight")
	delete(spec, "limits")
	replicas := nodes
	switch x := r.Float64(); {
	case x < 0.15 && nodes > 0:
		replicas--
	case x < 0.3:
		replicas++
	}
	spec["replicas"] = replicas
	if r.Float64() < 0.4 {
		spec["limits"] = map[string]any{"nodes": fmt.Sprint(nodes + r.Intn(2))}
	}
}

func generateDrift(seed int64, static bool) (string, error) {
	sc, err := disruptScenario(seed)
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewSource(seed*104729 + 3))
	now := time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)
	var docs []map[string]any
	for _, text := range strings.Split(sc["objects"].(string), "---\n") {
		var d map[string]any
		if err := yaml.Unmarshal([]byte(text), &d); err != nil {
			return "", err
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	created := map[string]string{}
	zonesOf := map[string][]string{}
	for _, d := range docs {
		meta, _ := d["metadata"].(map[string]any)
		switch d["kind"] {
		case "NodePool":
			h, err := templateHash(d)
			if err != nil {
				return "", err
			}
			created[meta["name"].(string)] = h
		case "Node":
			labels, _ := meta["labels"].(map[string]any)
			pool, _ := labels["karpenter.sh/nodepool"].(string)
			if z, ok := labels["topology.kubernetes.io/zone"].(string); ok && pool != "" {
				zonesOf[pool] = append(zonesOf[pool], z)
			}
		}
	}
	claims := 0
	for _, d := range docs {
		meta, _ := d["metadata"].(map[string]any)
		switch d["kind"] {
		case "NodeClaim":
			labels, _ := meta["labels"].(map[string]any)
			pool, _ := labels["karpenter.sh/nodepool"].(string)
			hash, version := created[pool], v1.NodePoolHashVersion
			switch x := r.Float64(); {
			case x < 0.15:
				hash = fmt.Sprint(r.Uint64()) // made from some older template
			case x < 0.2:
				version = "v2" // an older hash version is never compared
			}
			meta["annotations"] = map[string]any{v1.NodePoolHashAnnotationKey: hash, v1.NodePoolHashVersionAnnotationKey: version}
			// Distinct drift times, so the Drift method's order (oldest first) is determined.
			claims++
			st := sub(d, "status")
			st["conditions"] = []any{map[string]any{"type": "Drifted", "status": "True", "reason": "NodePoolDrifted",
				"lastTransitionTime": now.Add(-time.Duration(claims*7+r.Intn(5)) * time.Minute).Format(time.RFC3339)}}
		case "NodePool":
			name := meta["name"].(string)
			tmpl := sub(d, "spec", "template")
			if r.Float64() < 0.35 {
				// A template edit: every NodeClaim made before it drifts.
				if r.Float64() < 0.5 {
					sub(tmpl, "metadata", "annotations")["example.com/revision"] = "2"
				} else {
					sub(tmpl, "metadata", "labels")["example.com/revision"] = "2"
				}
			}
			if zs := zonesOf[name]; len(zs) > 0 && r.Float64() < 0.25 {
				// A requirement edit: the nodes in one zone no longer match.
				tspec := sub(tmpl, "spec")
				reqs, _ := tspec["requirements"].([]any)
				tspec["requirements"] = append(reqs, map[string]any{"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": []any{zs[r.Intn(len(zs))]}})
			}
		}
	}
	name := "drift"
	if static {
		name = "sdrift"
		rs := rand.New(rand.NewSource(seed*7907 + 5))
		nodes := map[string]int{}
		for pool, zs := range zonesOf {
			nodes[pool] = len(zs)
		}
		for _, d := range docs {
			if d["kind"] == "NodePool" && rs.Float64() < 0.7 {
				makeStatic(d, nodes[d["metadata"].(map[string]any)["name"].(string)], rs)
			}
		}
		settings, _ := sc["settings"].(map[string]any)
		if settings == nil {
			settings = map[string]any{}
		}
		if seed%3 == 0 {
			settings["featureGates"] = "TerminateFirstDrift=true"
		}
		sc["settings"] = settings
	}
	parts := make([]string, 0, len(docs))
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			return "", err
		}
		parts = append(parts, string(b))
	}
	sc["objects"] = strings.Join(parts, "---\n")
	sc["name"] = fmt.Sprintf("%s-%d", name, seed)
	sc["description"] = fmt.Sprintf("generated by oracle gen -kind %s -seed %d", name, seed)
	b, err := yaml.Marshal(sc)
	return string(b), err
}

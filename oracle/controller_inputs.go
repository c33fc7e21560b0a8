package main

// nodecast's inputs for the controller run's waves, written once the wave's pods exist (issue 36,
// part 3): the pods as the API server holds them, with the UIDs and creation times Karpenter's
// queue orders equal pods by.

import (
	"context"
	"strings"

	"github.com/nodecast/nodecast/oracle/controller"
	"sigs.k8s.io/yaml"
)

// podMakers: the kinds whose documents the scenario expands into pending pods (scenario.go add).
var podMakers = map[string]bool{"Pod": true, "Deployment": true, "Job": true, "CronJob": true,
	"ReplicationController": true, "ReplicaSet": true, "StatefulSet": true}

// firstWaveScenario: nodecast's input for a scenario's first wave once its pods exist — the
// scenario's documents with those that make pods replaced by the pods as the API server holds
// them (bare pods with their UIDs and creation times, podDocs). Karpenter's queue orders pods of
// equal requests by creation time, then UID; the generated documents carry neither, so nodecast
// and the in-process Karpenter ordered such twins by namespace/name (run14's ctl-185).
func firstWaveScenario(ctx context.Context, h *controller.Harness, s *Scenario) (string, error) {
	texts, err := s.texts()
	if err != nil {
		return "", err
	}
	var docs []string
	for _, text := range texts {
		for _, doc := range docSep.Split(text, -1) {
			var head struct {
				Kind string `json:"kind"`
			}
			if strings.TrimSpace(doc) == "" {
				continue
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return "", err
			}
			if !podMakers[head.Kind] {
				docs = append(docs, strings.TrimSpace(doc)+"\n")
			}
		}
	}
	pods, err := podDocs(ctx, h)
	if err != nil {
		return "", err
	}
	docs = append(docs, pods...)
	sc := map[string]any{"name": s.Name, "description": "first wave of " + s.Name + ", its pods as the API server holds them (oracle controller)",
		"reference": "generated", "kind": s.Kind, "catalog": s.Catalog, "objects": strings.Join(docs, "---\n"), "expect": map[string]any{}}
	if s.Clock.Now != "" {
		sc["clock"] = map[string]any{"now": s.Clock.Now}
	}
	if len(s.Settings) > 0 {
		sc["settings"] = s.Settings
	}
	return marshalScenario(sc)
}

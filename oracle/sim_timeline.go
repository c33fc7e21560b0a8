package main

// `nodecast simulate` over the controller's timings (issue 36, part 3). `oracle controller`
// writes each scenario's timeline beside its other files (ctl-<seed>-timeline.json: the pods'
// creations and deletions, the NodeClaims' launches and lifecycles, the budget edits, in seconds
// since the first pod was created); simRequest turns it into a simulate request that replays the
// scenario from its start — the NodePools and DaemonSets as cluster documents, every pod an inline
// Pod submitted at its creation second, the drawn pods deleted by name, the budget edits as
// `nodePool` events — and sim_compare.go compares what the simulation did with what the
// controller did.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nodecast/nodecast/oracle/controller"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/yaml"
)

// simTimeline is ctl-<seed>-timeline.json.
type simTimeline struct {
	Name    string `json:"name"`
	Catalog any    `json:"catalog"`
	// The scenario's NodePools and DaemonSets, as generated (YAML documents).
	Base []string `json:"base"`
	// Each launched NodeClaim in the oracle's form (NodePool, options, the AWS launch set, the
	// fake provider's pick), by name.
	Launches map[string]Claim `json:"launches"`
	// The disruption phase: the controller's first decision and when the budgets opened.
	Disrupt *simPhase `json:"disrupt,omitempty"`
	controller.Timeline
}

type simPhase struct {
	Deleted  []string       `json:"deleted"`
	Decision *DisruptAnswer `json:"decision,omitempty"`
	// Seconds from the budgets opening to the decision (45 for none).
	DecideSeconds float64 `json:"decideSeconds"`
	Error         string  `json:"error,omitempty"`
}

// writeTimeline writes the scenario's timeline (before the harness's Reset forgets it).
func writeTimeline(h *controller.Harness, name string, s *Scenario, plan *disruptPlan, its cloudprovider.InstanceTypes, aws bool, outDir string) {
	t := simTimeline{Name: name, Catalog: s.Catalog, Launches: map[string]Claim{}, Timeline: h.Timeline()}
	texts, err := s.texts()
	if err == nil {
		for _, text := range texts {
			for _, doc := range docSep.Split(text, -1) {
				var head struct {
					Kind string `json:"kind"`
				}
				if yaml.Unmarshal([]byte(doc), &head) == nil && (head.Kind == "NodePool" || head.Kind == "DaemonSet") {
					t.Base = append(t.Base, strings.TrimSpace(doc))
				}
			}
		}
	}
	index := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		index[it.Name] = it
	}
	launches, _, _, _ := h.Record()
	for _, l := range launches {
		t.Launches[l.NodeClaim.Name] = launchedClaim(l, index, aws)
	}
	if plan != nil {
		t.Disrupt = &simPhase{Deleted: plan.deleted, Decision: plan.karpenter, DecideSeconds: plan.decide, Error: plan.err}
	}
	b, err := json.MarshalIndent(t, "", " ")
	if err == nil {
		err = os.WriteFile(filepath.Join(outDir, name+"-timeline.json"), b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: timeline: %v\n", name, err)
	}
}

func readTimeline(path string) (*simTimeline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &simTimeline{}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// sec: a timeline instant on the simulator's one-second clock (nearest second).
func sec(f float64) int { return int(math.Round(f)) }

// instances: the trace instance name of each pod ("ns/name" → name): a submitted Pod's pod
// takes its instance's name, so the simulation's pods keep the real names; a name two namespaces
// share gets its namespace appended.
func (t *simTimeline) instances() map[string]string {
	count := map[string]int{}
	for _, p := range t.Pods {
		_, name, _ := strings.Cut(p.Name, "/")
		count[name]++
	}
	out := map[string]string{}
	for _, p := range t.Pods {
		ns, name, _ := strings.Cut(p.Name, "/")
		if count[name] > 1 {
			name += "-" + ns
		}
		out[p.Name] = name
	}
	return out
}

// startupSeconds: the harness's launch → initialized latency (its Node Ready at once, Karpenter's
// registration and initialization), the median over the scenario's NodeClaims, in whole seconds.
func (t *simTimeline) startupSeconds() int {
	var d []float64
	for _, c := range t.Claims {
		if c.Initialized != nil {
			d = append(d, *c.Initialized-c.Launched)
		}
	}
	if len(d) == 0 {
		return 1
	}
	sort.Float64s(d)
	return sec(d[len(d)/2])
}

// openAt: when the budgets opened (the last budget edit), -1 without a disruption phase.
func (t *simTimeline) openAt() float64 {
	if len(t.Budgets) < 2 {
		return -1
	}
	return t.Budgets[len(t.Budgets)-1].At
}

// simRequest: the timeline as `nodecast simulate` input — the cluster documents, the trace and
// the settings (JSON; YAML reads JSON) and the catalog argument.
type simFiles struct {
	Cluster, Trace, Settings string
	// Catalog: a catalog name, or the JSON of a {catalog: ...} file.
	Catalog     string
	CatalogFile bool
	End         int
}

func simRequest(t *simTimeline) (*simFiles, error) {
	if len(t.Pods) == 0 {
		return nil, fmt.Errorf("%s: the timeline has no pods", t.Name)
	}
	type ev struct {
		at    float64
		order int
		doc   map[string]any
	}
	var evs []ev
	add := func(at float64, doc map[string]any) {
		doc["at"] = fmt.Sprintf("%ds", max(sec(at), 0))
		evs = append(evs, ev{at, len(evs), doc})
	}
	inst := t.instances()
	for _, p := range t.Pods {
		var m map[string]any
		if err := json.Unmarshal(p.Manifest, &m); err != nil {
			return nil, fmt.Errorf("%s: pod %s: %w", t.Name, p.Name, err)
		}
		add(p.Created, map[string]any{"submit": map[string]any{"manifest": m}, "name": inst[p.Name]})
		if p.Deleted != nil {
			add(*p.Deleted, map[string]any{"delete": inst[p.Name]})
		}
	}
	// The budget edits: every NodePool as generated with the harness's disruption block.
	for _, b := range t.Budgets {
		var d any
		if err := json.Unmarshal(b.Disruption, &d); err != nil {
			return nil, err
		}
		for _, doc := range t.Base {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			if m["kind"] != "NodePool" {
				continue
			}
			spec, _ := m["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				m["spec"] = spec
			}
			spec["disruption"] = d
			add(b.At, map[string]any{"nodePool": m})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if sec(evs[i].at) != sec(evs[j].at) {
			return sec(evs[i].at) < sec(evs[j].at)
		}
		return evs[i].order < evs[j].order
	})
	events := make([]map[string]any, len(evs))
	last := 0
	for i, e := range evs {
		events[i] = e.doc
		last = max(last, sec(e.at))
	}
	// The end: a little after the controller's first decision (or its 45 s wait for none), else
	// after the last event.
	end := last + 30
	if open := t.openAt(); open >= 0 && t.Disrupt != nil {
		end = sec(open+t.Disrupt.DecideSeconds) + 15
	}
	trace, err := json.MarshalIndent(map[string]any{"apiVersion": "nodecast/v1", "kind": "Trace", "events": events}, "", " ")
	if err != nil {
		return nil, err
	}
	up := t.startupSeconds()
	settings, err := json.MarshalIndent(map[string]any{
		"seed":                        1,
		"startupSeconds":              map[string]int{"min": up, "max": up},
		"gpuStartupSeconds":           map[string]int{"min": up, "max": up},
		"devicePluginSeconds":         map[string]int{"min": 0, "max": 0},
		"spotInterruptionRatePerHour": 0,
		"batchIdleSeconds":            1,
		"batchMaxSeconds":             10,
		"disruptionPollSeconds":       10,
		"endSeconds":                  end,
	}, "", " ")
	if err != nil {
		return nil, err
	}
	f := &simFiles{Cluster: strings.Join(t.Base, "\n---\n") + "\n", Trace: string(trace), Settings: string(settings), End: end}
	switch c := t.Catalog.(type) {
	case string:
		f.Catalog = c
	case nil:
		f.Catalog = "aws-us-east-1"
	default:
		b, err := json.Marshal(map[string]any{"catalog": c})
		if err != nil {
			return nil, err
		}
		f.Catalog, f.CatalogFile = string(b), true
	}
	return f, nil
}

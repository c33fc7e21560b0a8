// The HPA oracle: random HorizontalPodAutoscalers × random metric series, each replayed through
// Kubernetes 1.36.1's own controller code (overlay/nodecast_replay.go) on a fake clock
// (testing/synctest: a sync every 15 s of bubble time). Writes the cases with the replicas the
// controller chose at every sync; nodecast replays them (core/tests/hpa_oracle.rs).
//
//	HPA_CASES=2000 HPA_SEED=1 HPA_OUT=out/cases.json go test -overlay overlay.json ./...
package hpa

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/apis/autoscaling/v2"
	"k8s.io/kubernetes/pkg/controller/podautoscaler"
)

type replayCase struct {
	Name     string                               `json:"name"`
	HPA      *autoscalingv2.HorizontalPodAutoscaler `json:"hpa"`
	Replicas int32                                `json:"replicas"`
	Syncs    []podautoscaler.NodecastSync         `json:"syncs"`
	Expected []int32                              `json:"expected"`
}

func env(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func ptr[T any](v T) *T { return &v }

func rules(r *rand.Rand, up bool) *autoscalingv2.HPAScalingRules {
	if r.IntN(4) == 0 {
		return nil
	}
	out := &autoscalingv2.HPAScalingRules{}
	if r.IntN(3) > 0 {
		// Multiples of the 15 s sync and odd values, to exercise the strict window edges.
		w := int32(r.IntN(41) * 15)
		if r.IntN(3) == 0 {
			w = int32(r.IntN(601))
		}
		out.StabilizationWindowSeconds = &w
	}
	switch r.IntN(10) {
	case 0:
		out.SelectPolicy = ptr(autoscalingv2.MinChangePolicySelect)
	case 1:
		out.SelectPolicy = ptr(autoscalingv2.DisabledPolicySelect)
	case 2, 3:
		out.SelectPolicy = ptr(autoscalingv2.MaxChangePolicySelect)
	}
	if r.IntN(4) > 0 {
		n := 1 + r.IntN(2)
		for i := 0; i < n; i++ {
			p := autoscalingv2.HPAScalingPolicy{PeriodSeconds: int32(15 * (1 + r.IntN(12)))}
			if r.IntN(3) == 0 {
				p.PeriodSeconds = int32(1 + r.IntN(300))
			}
			if r.IntN(2) == 0 {
				p.Type, p.Value = autoscalingv2.PodsScalingPolicy, int32(1+r.IntN(5))
			} else {
				p.Type, p.Value = autoscalingv2.PercentScalingPolicy, int32(10+r.IntN(200))
			}
			out.Policies = append(out.Policies, p)
		}
	}
	if r.IntN(5) == 0 {
		out.Tolerance = resource.NewMilliQuantity(int64(r.IntN(300)), resource.DecimalSI)
	}
	_ = up
	return out
}

func metric(r *rand.Rand) autoscalingv2.MetricSpec {
	q := func(lo, hi int) *resource.Quantity { return resource.NewMilliQuantity(int64(lo+r.IntN(hi-lo)), resource.DecimalSI) }
	switch r.IntN(7) {
	case 0:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "memory",
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(20 + r.IntN(100)))}}}
	case 1:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "memory",
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q(200, 3000)}}}
	case 2:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference{Kind: "Service", Name: "s", APIVersion: "v1"},
			Metric:          autoscalingv2.MetricIdentifier{Name: "m"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q(1000, 50000)}}}
	case 3:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference{Kind: "Service", Name: "s", APIVersion: "v1"},
			Metric:          autoscalingv2.MetricIdentifier{Name: "m"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q(1000, 50000)}}}
	case 4:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: "m"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q(1000, 50000)}}}
	case 5:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: "m"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q(1000, 50000)}}}
	default:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: "m"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q(1000, 100000)}}}
	}
}

func randomCase(r *rand.Rand, i int) replayCase {
	minR := int32(1 + r.IntN(3))
	maxR := minR + int32(r.IntN(13))
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("h%d", i), Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "t"},
			MaxReplicas:    maxR,
		},
	}
	if r.IntN(5) > 0 {
		hpa.Spec.MinReplicas = &minR
	}
	for n := 1 + r.IntN(2); n > 0; n-- {
		hpa.Spec.Metrics = append(hpa.Spec.Metrics, metric(r))
	}
	if r.IntN(3) > 0 {
		hpa.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(r, true), ScaleDown: rules(r, false)}
	}
	return replayCase{Name: hpa.Name, HPA: hpa, Replicas: int32(1 + r.IntN(int(maxR)+2))}
}

// pods for a sync: the current count, each pending, missing or reporting a value around `level`.
func pods(r *rand.Rand, n int32, level int64, request int64) []podautoscaler.NodecastPod {
	out := make([]podautoscaler.NodecastPod, 0, n)
	for i := int32(0); i < n; i++ {
		p := podautoscaler.NodecastPod{State: "value", Request: request}
		switch k := r.IntN(20); {
		case k == 0:
			p.State = "pending"
		case k == 1:
			p.State = "missing"
		default:
			p.Value = level/2 + r.Int64N(level+1)
		}
		out = append(out, p)
	}
	return out
}

func TestReplay(t *testing.T) {
	n := env("HPA_CASES", 200)
	seed := uint64(env("HPA_SEED", 1))
	out := os.Getenv("HPA_OUT")
	if out == "" {
		out = "testdata/sample.json"
	}
	syncs := env("HPA_SYNCS", 40)
	r := rand.New(rand.NewPCG(seed, 33))
	cases := make([]replayCase, 0, n)
	for i := 0; i < n; i++ {
		c := randomCase(r, i)
		stored := c.HPA.DeepCopy()
		defaulted := c.HPA.DeepCopy()
		v2.SetDefaults_HorizontalPodAutoscaler(defaulted)
		request := int64(500 + r.IntN(4000))
		level := int64(1000 + r.IntN(80000))
		synctest.Test(t, func(t *testing.T) {
			rep := podautoscaler.NewNodecastReplayer(defaulted, c.Replicas)
			for k := 0; k < syncs; k++ {
				// A demand that wanders: the level drifts by up to ±40 % a sync.
				level = max(100, level*int64(60+r.IntN(81))/100)
				s := podautoscaler.NodecastSync{Pods: pods(r, rep.Current(), level, request), Total: level * int64(1+r.IntN(12))}
				c.Syncs = append(c.Syncs, s)
				c.Expected = append(c.Expected, rep.Sync(&s))
				time.Sleep(15 * time.Second)
			}
		})
		c.HPA = stored
		cases = append(cases, c)
	}
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases × %d syncs written to %s", n, syncs, out)
}

// The KEDA oracle: random ScaledJob trigger sets × random queue series, each poll computed by
// KEDA v2.21.0's own ScaledJob metric functions (pkg/scaling/scaledjob: CalculateQueueLengthAndMaxValue
// per trigger, IsScaledJobActive across them with multipleScalersCalculation). Writes the cases
// with KEDA's answers; nodecast replays them (core/tests/keda_oracle.rs).
//
//	KEDA_CASES=2000 KEDA_SEED=1 KEDA_OUT=out/cases.json go test ./...
//
// The job-count strategies and the ScaledObject activation/cooldown decisions live in
// pkg/scaling/executor, which imports pkg/scaling/resolver and with it the AWS, Azure, GCP and
// Vault SDKs; they are checked against scenarios distilled from KEDA's own tests instead
// (core/src/simulate/keda/*.rs unit tests and core/tests/keda_scenarios.rs).
package keda

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	v2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/metrics/pkg/apis/external_metrics"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	"github.com/kedacore/keda/v2/pkg/scaling/scaledjob"
)

type trigger struct {
	Target     float64 `json:"target"`
	Activation float64 `json:"activation"`
	Value      bool    `json:"value"`
}

type poll struct {
	Values   []float64 `json:"values"`
	Active   bool      `json:"active"`
	ScaleTo  int64     `json:"scaleTo"`
	MaxScale int64     `json:"maxScale"`
}

type replayCase struct {
	Name     string    `json:"name"`
	Calc     string    `json:"calc"`
	Min      int64     `json:"min"`
	Max      int64     `json:"max"`
	Triggers []trigger `json:"triggers"`
	Polls    []poll    `json:"polls"`
}

func env(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// quantity writes a float as KEDA's scalers do (quantityFromFloat64: three decimals).
func quantity(x float64) resource.Quantity {
	return resource.MustParse(fmt.Sprintf("%.3f", x))
}

func value(r *rand.Rand, scale float64) float64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return float64(r.IntN(4))
	case 2:
		return float64(r.IntN(200))
	default:
		return float64(r.IntN(int(scale*1000)+1)) / 1000
	}
}

func TestReplay(t *testing.T) {
	n := env("KEDA_CASES", 2000)
	r := rand.New(rand.NewPCG(uint64(env("KEDA_SEED", 1)), 33))
	calcs := []string{"", "max", "min", "avg", "sum"}
	var cases []replayCase
	polls := 0
	for i := range n {
		c := replayCase{Name: fmt.Sprintf("case-%d", i), Calc: calcs[r.IntN(len(calcs))]}
		if r.IntN(3) == 0 {
			c.Min = int64(r.IntN(4))
		}
		c.Max = int64(1 + r.IntN(30))
		for range 1 + r.IntN(3) {
			tg := trigger{Target: float64(1+r.IntN(20)) / float64(1+r.IntN(3)), Value: r.IntN(8) == 0}
			if r.IntN(2) == 0 {
				tg.Activation = float64(r.IntN(10))
			}
			c.Triggers = append(c.Triggers, tg)
		}
		for range 20 {
			p := poll{}
			var all []scaledjob.ScalerMetrics
			for k, tg := range c.Triggers {
				v := value(r, 60)
				p.Values = append(p.Values, v)
				name := fmt.Sprintf("s%d-queue", k)
				target := v2.MetricTarget{Type: v2.AverageValueMetricType}
				q := quantity(tg.Target)
				if tg.Value {
					target = v2.MetricTarget{Type: v2.ValueMetricType, Value: &q}
				} else {
					target.AverageValue = &q
				}
				specs := []v2.MetricSpec{{Type: v2.ExternalMetricSourceType, External: &v2.ExternalMetricSource{Metric: v2.MetricIdentifier{Name: name}, Target: target}}}
				metrics := []external_metrics.ExternalMetricValue{{MetricName: name, Value: quantity(v)}}
				// The scalers' own activity rule: value above the activation threshold.
				active := v > tg.Activation
				queue, maxValue, _ := scaledjob.CalculateQueueLengthAndMaxValue(metrics, specs, maxReplicaCount(c))
				all = append(all, scaledjob.ScalerMetrics{QueueLength: queue, MaxValue: maxValue, IsActive: active})
			}
			p.Active, p.ScaleTo, p.MaxScale, _ = scaledjob.IsScaledJobActive(all, c.Calc, minReplicaCount(c), maxReplicaCount(c))
			c.Polls = append(c.Polls, p)
			polls++
		}
		cases = append(cases, c)
	}
	out := os.Getenv("KEDA_OUT")
	if out == "" {
		out = "cases.json"
	}
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases, %d polls written to %s", len(cases), polls, out)
}

// KEDA's own ScaledJob.MinReplicaCount / MaxReplicaCount (apis/keda/v1alpha1/scaledjob_types.go)
// for a case whose minReplicaCount is set when Min > 0.
func scaledJob(c replayCase) kedav1alpha1.ScaledJob {
	sj := kedav1alpha1.ScaledJob{}
	mx := int32(c.Max)
	sj.Spec.MaxReplicaCount = &mx
	if c.Min > 0 {
		mn := int32(c.Min)
		sj.Spec.MinReplicaCount = &mn
	}
	return sj
}

func minReplicaCount(c replayCase) int64 { return scaledJob(c).MinReplicaCount() }

func maxReplicaCount(c replayCase) int64 { return scaledJob(c).MaxReplicaCount() }

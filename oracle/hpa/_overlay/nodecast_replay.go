// nodecast's HPA oracle: this file is added to Kubernetes' own podautoscaler package at build
// time (go build -overlay, see ../overlay.json) so the replay calls the controller's unexported
// code: computeReplicasForMetrics (which runs the ReplicaCalculator against the pods and the
// metrics below), normalizeDesiredReplicas[WithBehaviors], storeScaleEvent and the
// recommendations they keep. Only reconcileAutoscaler's glue around them (the min/max
// branches, rescale when different) is restated, as it stands in horizontal.go.

package podautoscaler

import (
	"context"
	"fmt"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/kubernetes/pkg/controller/podautoscaler/monitor"
	metricsclient "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
	"k8s.io/kubernetes/pkg/controller/util/selectors"
	"k8s.io/apimachinery/pkg/api/resource"
)

func resourceMilli(v int64) *resource.Quantity { return resource.NewMilliQuantity(v, resource.BinarySI) }

// NodecastPod is one pod of the scale target at a sync: "pending", "missing" (running, not
// ready, no metric) or "value" (running, ready, reporting Value milli-units).
type NodecastPod struct {
	State   string `json:"state"`
	Value   int64  `json:"value,omitempty"`
	Request int64  `json:"request,omitempty"`
}

// NodecastSync is what the metrics say at one sync.
type NodecastSync struct {
	Pods []NodecastPod `json:"pods"`
	// Total is the Object/External metric's value (milli-units).
	Total int64 `json:"total"`
}

type nodecastMetrics struct{ cur *NodecastSync }

func (m *nodecastMetrics) podMetrics() metricsclient.PodMetricsInfo {
	out := metricsclient.PodMetricsInfo{}
	for i, p := range m.cur.Pods {
		if p.State == "value" {
			out[fmt.Sprintf("p%d", i)] = metricsclient.PodMetric{Value: p.Value, Timestamp: time.Now(), Window: time.Minute}
		}
	}
	return out
}

func (m *nodecastMetrics) GetResourceMetric(_ context.Context, _ v1.ResourceName, _ string, _ labels.Selector, _ string) (metricsclient.PodMetricsInfo, time.Time, error) {
	return m.podMetrics(), time.Now(), nil
}

func (m *nodecastMetrics) GetRawMetric(_ string, _ string, _ labels.Selector, _ labels.Selector) (metricsclient.PodMetricsInfo, time.Time, error) {
	return m.podMetrics(), time.Now(), nil
}

func (m *nodecastMetrics) GetObjectMetric(_ string, _ string, _ *autoscalingv2.CrossVersionObjectReference, _ labels.Selector) (int64, time.Time, error) {
	return m.cur.Total, time.Now(), nil
}

func (m *nodecastMetrics) GetExternalMetric(_ string, _ string, _ labels.Selector) ([]int64, time.Time, error) {
	return []int64{m.cur.Total}, time.Now(), nil
}

// NodecastReplayer holds one HPA's controller between syncs.
type NodecastReplayer struct {
	a       *HorizontalController
	hpa     *autoscalingv2.HorizontalPodAutoscaler
	metrics *nodecastMetrics
	indexer cache.Indexer
	current int32
}

// NewNodecastReplayer: hpa already defaulted as the apiserver stores it; the target starts at
// `replicas`.
func NewNodecastReplayer(hpa *autoscalingv2.HorizontalPodAutoscaler, replicas int32) *NodecastReplayer {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	m := &nodecastMetrics{}
	podLister := corelisters.NewPodLister(indexer)
	a := &HorizontalController{
		tolerance:                    0.1,
		replicaCalc:                  NewReplicaCalculator(m, podLister, 5*time.Minute, 30*time.Second),
		eventRecorder:                &record.FakeRecorder{},
		downscaleStabilisationWindow: 5 * time.Minute,
		monitor:                      monitor.New(),
		podLister:                    podLister,
		recommendations:              map[string][]timestampedRecommendation{},
		scaleUpEvents:                map[string][]timestampedScaleEvent{},
		scaleDownEvents:              map[string][]timestampedScaleEvent{},
		hpaSelectors:                 selectors.NewBiMultimap(),
	}
	return &NodecastReplayer{a: a, hpa: hpa, metrics: m, indexer: indexer, current: replicas}
}

// Current is the Scale's replicas now.
func (r *NodecastReplayer) Current() int32 { return r.current }

// Sync runs one reconcile at the (fake) time now with the pods and metrics of s, and returns
// the replicas the Scale has afterwards.
func (r *NodecastReplayer) Sync(s *NodecastSync) int32 {
	r.metrics.cur = s
	for _, o := range r.indexer.List() {
		_ = r.indexer.Delete(o)
	}
	for i, p := range s.Pods {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default", Labels: map[string]string{"app": "t"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{}}}}},
		}
		if p.Request > 0 {
			pod.Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = *resourceMilli(p.Request)
		}
		switch p.State {
		case "pending":
			pod.Status.Phase = v1.PodPending
		default:
			pod.Status.Phase = v1.PodRunning
			ready := v1.ConditionFalse
			if p.State == "value" {
				ready = v1.ConditionTrue
			}
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: ready}}
		}
		_ = r.indexer.Add(pod)
	}
	hpa := r.hpa.DeepCopy()
	key := "default/" + hpa.Name
	scale := &autoscalingv1.Scale{
		Spec:   autoscalingv1.ScaleSpec{Replicas: r.current},
		Status: autoscalingv1.ScaleStatus{Replicas: r.current, Selector: "app=t"},
	}
	currentReplicas := scale.Spec.Replicas
	r.a.recordInitialRecommendation(currentReplicas, key)
	// reconcileAutoscaler, HPAScaleToZero off, without the API writes.
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	desiredReplicas := int32(0)
	rescale := true
	if currentReplicas == 0 {
		desiredReplicas = 0
		rescale = false
	} else if currentReplicas > hpa.Spec.MaxReplicas {
		desiredReplicas = hpa.Spec.MaxReplicas
	} else if currentReplicas < minReplicas {
		desiredReplicas = minReplicas
	} else {
		metricDesiredReplicas, _, _, _, err := r.a.computeReplicasForMetrics(context.Background(), hpa, scale, hpa.Spec.Metrics)
		if err != nil && metricDesiredReplicas == -1 {
			return r.current
		}
		if metricDesiredReplicas > desiredReplicas {
			desiredReplicas = metricDesiredReplicas
		}
		if hpa.Spec.Behavior == nil {
			desiredReplicas = r.a.normalizeDesiredReplicas(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		} else {
			desiredReplicas = r.a.normalizeDesiredReplicasWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		}
		rescale = desiredReplicas != currentReplicas
	}
	if rescale {
		r.a.storeScaleEvent(hpa.Spec.Behavior, key, currentReplicas, desiredReplicas)
		r.current = desiredReplicas
	}
	return r.current
}

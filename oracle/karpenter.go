package main

// The Karpenter side: the scenario's objects in a controller-runtime fake client and Karpenter's
// cluster state, then Karpenter's own provisioner (scheduler, Solve, truncation) or disruption
// methods, run in-process.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/awslabs/operatorpkg/option"
	"github.com/awslabs/operatorpkg/status"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	autoscalingv1beta1 "sigs.k8s.io/karpenter/pkg/apis/autoscaling/v1beta1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	pscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	"sigs.k8s.io/karpenter/pkg/test"
)

func init() {
	log.SetLogger(logging.NopLogger)
}

// defaultNow is the clock of a provision scenario without `clock`.
var defaultNow = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type Env struct {
	ctx     context.Context
	clk     *clocktesting.FakeClock
	client  client.Client
	cp      *fake.CloudProvider
	cluster *state.Cluster
	prov    *provisioning.Provisioner
	rec     events.Recorder
	objs    *Objects
	aws     bool
	its     map[string]*cloudprovider.InstanceType
	// The cloud provider as Karpenter's controllers see it (decorated with NodeOverlays when
	// that gate is on) and the device-allocation controller: the static controller (static.go)
	// builds its own provisioner from them, as controllers.go does.
	cpd cloudprovider.CloudProvider
	dac *deviceallocation.Controller
	// The static NodeClaims the static provisioning controller created (static.go), by name.
	static     map[string]*Claim
	staticGate bool
	// The fake client's object tracker, for what the client itself refuses to write (a
	// terminating pod's deletionTimestamp: terminating).
	tracker clienttesting.ObjectTracker
	// Nodes without kubernetes.io/hostname keep none (Scenario.hostnameless).
	hostnameless bool
}

func settingString(s map[string]any, k string) string {
	if v, ok := s[k].(string); ok {
		return v
	}
	return ""
}

// newEnvWith builds the environment; typesFor returns the instance types with a node class's
// reserved offerings (nil: none).
func newEnvWith(s *Scenario, cat *Catalog, typesFor func(map[string][]CatalogOffering) cloudprovider.InstanceTypes) (*Env, error) {
	objs, err := s.ParseObjects()
	if err != nil {
		return nil, err
	}
	// The resourceclaim controller's work matters only when Karpenter builds its DRA allocator
	// (--ignore-dra-requests=false); with the default, a pod with claims is refused whatever its
	// claims are, and the older gates scenarios name templates they do not hold (gates-6).
	if ignore, ok := s.Settings["ignoreDraRequests"].(bool); ok && !ignore {
		if err := objs.generateTemplateClaims(); err != nil {
			return nil, err
		}
	}
	now := defaultNow
	if s.Clock.Now != "" {
		if now, err = time.Parse(time.RFC3339, s.Clock.Now); err != nil {
			return nil, err
		}
	}
	cat.Register()
	fields := test.OptionsFields{}
	if settingString(s.Settings, "minValuesPolicy") == "BestEffort" {
		fields.MinValuesPolicy = lo.ToPtr(options.MinValuesPolicyBestEffort)
	}
	if settingString(s.Settings, "preferencePolicy") == "Ignore" {
		fields.PreferencePolicy = lo.ToPtr(options.PreferencePolicyIgnore)
	}
	// Karpenter's --ignore-dra-requests (default true): false builds its DRA allocator.
	if b, ok := s.Settings["ignoreDraRequests"].(bool); ok {
		fields.IgnoreDRARequests = lo.ToPtr(b)
	}
	if b, ok := s.Settings["spotToSpotConsolidation"].(bool); ok {
		fields.FeatureGates.SpotToSpotConsolidation = lo.ToPtr(b)
	}
	// examples/expectations.yaml may state the gate as Karpenter's flag: "Gate=bool,...".
	nodeOverlay := false
	for _, kv := range strings.Split(settingString(s.Settings, "featureGates"), ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		switch {
		case ok && k == "SpotToSpotConsolidation":
			fields.FeatureGates.SpotToSpotConsolidation = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "NodeOverlay":
			nodeOverlay = strings.EqualFold(v, "true")
			fields.FeatureGates.NodeOverlay = lo.ToPtr(nodeOverlay)
		case ok && k == "ReservedCapacity":
			fields.FeatureGates.ReservedCapacity = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "NodeRepair":
			fields.FeatureGates.NodeRepair = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "StaticCapacity":
			fields.FeatureGates.StaticCapacity = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "CapacityBuffer":
			fields.FeatureGates.CapacityBuffer = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "TerminateFirstDrift":
			fields.FeatureGates.TerminateFirstDrift = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "TerminateFirstRepair":
			fields.FeatureGates.TerminateFirstRepair = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok && k == "PodDeletionCostManagement":
			fields.FeatureGates.PodDeletionCostManagement = lo.ToPtr(strings.EqualFold(v, "true"))
		case ok:
			// A gate left at its default on this side while nodecast turned it would be a
			// silent disagreement of setups, not of answers.
			return nil, fmt.Errorf("settings.featureGates: %q is not a gate the harness passes to Karpenter", k)
		}
	}
	bufferGate := lo.FromPtr(fields.FeatureGates.CapacityBuffer)
	e0static := lo.FromPtr(fields.FeatureGates.StaticCapacity)
	// Karpenter's --scheduler-config (default topology spreads), parsed as the operator parses
	// the flag; the scenario spells it as the dump recorded Karpenter's options (JSON).
	if c, ok := s.Settings["schedulerConfig"]; ok && c != nil {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		if fields.SchedulerConfig, err = options.ParseSchedulerConfiguration(string(raw)); err != nil {
			return nil, fmt.Errorf("settings.schedulerConfig: %w", err)
		}
	}
	reservedGate := fields.FeatureGates.ReservedCapacity == nil || *fields.FeatureGates.ReservedCapacity
	// settings.maxInstanceTypes: how many options a NodeClaim keeps (Karpenter's package variable
	// scheduling.MaxInstanceTypes, 600 unless a test sets it; its scheduling suite sets 60, and
	// its passes carry that). Set on every scenario: the harness runs one Karpenter at a time.
	pscheduling.MaxInstanceTypes = 600
	if n, ok := s.Settings["maxInstanceTypes"].(float64); ok {
		if n < 1 || n != math.Trunc(n) {
			return nil, fmt.Errorf("settings.maxInstanceTypes: %v is not a positive integer", n)
		}
		pscheduling.MaxInstanceTypes = int(n)
	}
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), test.Options(fields))
	e := &Env{ctx: ctx, clk: clocktesting.NewFakeClock(now), objs: objs, aws: cat.Source == "aws-us-east-1", its: map[string]*cloudprovider.InstanceType{}, staticGate: e0static, hostnameless: s.hostnameless}
	// The plain object tracker, not the fake client's default field-managed one: that one builds
	// a REST mapper of the whole scheme on every Create and Update (client-go testing/fixture.go
	// NewFieldManagedObjectTracker), 26 % of a reservation/gates run's CPU, and server-side apply
	// (the only thing managed fields serve) is never used by Karpenter v1.15's controllers.
	e.tracker = clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	e.client = fakecr.NewClientBuilder().WithScheme(scheme.Scheme).
		WithObjectTracker(e.tracker).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&v1.NodeClaim{}, "status.providerID", func(o client.Object) []string { return []string{o.(*v1.NodeClaim).Status.ProviderID} }).
		WithStatusSubresource(&v1.NodePool{}, &v1.NodeClaim{}, &corev1.Pod{}, &corev1.Node{}, &policyv1.PodDisruptionBudget{}, &v1alpha1.NodeOverlay{}, &autoscalingv1beta1.CapacityBuffer{}).
		Build()
	e.cp = fake.NewCloudProvider()
	// The AWS provider's DRA templates on the types it lists (nodecast's line carries them only
	// when --ignore-dra-requests=false and a DRA gate is on: populateDynamicResources).
	baseTypes := typesFor
	typesFor = func(r map[string][]CatalogOffering) cloudprovider.InstanceTypes {
		its, derr := withDynamicResources(baseTypes(r), s.dra)
		if derr != nil {
			err = derr
		}
		return its
	}
	e.cp.InstanceTypes = typesFor(nil)
	if err != nil {
		return nil, err
	}
	for _, it := range e.cp.InstanceTypes {
		e.its[it.Name] = it
	}
	// Reserved offerings per NodePool, from the reservations its EC2NodeClass selects (the AWS
	// provider makes none with the ReservedCapacity gate off: reserved_capacity_resolver.go).
	if reservedGate {
		pools, err := cat.PoolReservations(objs, now)
		if err != nil {
			return nil, err
		}
		for pool, reserved := range pools {
			if len(reserved) > 0 {
				e.cp.InstanceTypesForNodePool[pool] = typesFor(reserved)
			}
		}
	}
	e.rec = events.NewRecorder(&record.FakeRecorder{})
	// With the NodeOverlay gate, Karpenter's own overlay path: the nodeoverlay controller fills
	// the instance-type store, and the cloud provider decorator applies it per NodePool.
	var cp cloudprovider.CloudProvider = e.cp
	store := nodeoverlay.NewInstanceTypeStore()
	if nodeOverlay {
		cp = overlay.Decorate(e.cp, e.client, store)
	}
	// Node repair: the AWS provider's policies (repair.go) in the cluster state's matcher, which
	// Karpenter builds only with the NodeRepair gate on (health.NewRepairPolicyMatcher; nil off).
	e.cp.RepairPolicy = awsRepairPolicies()
	matcher, err := health.NewRepairPolicyMatcher(ctx, e.cp)
	if err != nil {
		return nil, err
	}
	var clusterOpts []option.Function[state.ClusterOptions]
	if matcher != nil {
		clusterOpts = append(clusterOpts, state.WithRepairPolicyMatcher(matcher))
	}
	e.cluster = state.NewCluster(e.clk, e.client, cp, clusterOpts...)
	// Karpenter's device-allocation controller (allocated devices from the claims' status), which
	// the provisioner reads only with --ignore-dra-requests=false; hydrated once the claims exist.
	dac := deviceallocation.NewController(e.client)
	// The CapacityBuffer gate's virtual pods (buffer.go); the provisioner reads the cache only
	// with the gate on.
	var vpc *virtualpods.Cache
	if bufferGate {
		vpc = virtualpods.NewVirtualPodCache(e.client)
	}
	e.prov = provisioning.NewProvisioner(e.client, e.rec, cp, e.cluster, e.clk, dac, vpc)
	e.cpd, e.dac = cp, dac
	if err := e.load(); err != nil {
		return nil, err
	}
	if bufferGate {
		if err := e.loadBuffers(vpc); err != nil {
			return nil, err
		}
	}
	dac.Hydrate(e.ctx)
	if nodeOverlay {
		for _, ov := range objs.Overlays {
			if err := e.create(ov); err != nil {
				return nil, err
			}
		}
		if _, err := nodeoverlay.NewController(e.clk, e.client, e.cp, store, e.cluster).Reconcile(e.ctx, reconcile.Request{}); err != nil {
			return nil, fmt.Errorf("nodeoverlay reconcile: %w", err)
		}
	}
	return e, nil
}

func (e *Env) create(o client.Object) error {
	return e.client.Create(e.ctx, o)
}

// defaults applies the NodePool CRD defaults (the API server would).
func defaults(np *v1.NodePool) {
	d := &np.Spec.Disruption
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	if d.ConsolidateAfter.Duration == nil && d.ConsolidateAfter.Raw == nil {
		d.ConsolidateAfter = v1.MustParseNillableDuration("0s")
	}
	if len(d.Budgets) == 0 {
		d.Budgets = []v1.Budget{{Nodes: "10%"}}
	}
	if np.Spec.Template.Spec.ExpireAfter.Duration == nil && np.Spec.Template.Spec.ExpireAfter.Raw == nil {
		np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("720h")
	}
	// The fake cloud provider's node class stands in for the EC2NodeClass (it does not decide anything).
	np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}
}

func (e *Env) load() error {
	pools := map[string]*v1.NodePool{}
	// The template hash of each NodePool as the scenario writes it (its own nodeClassRef, the
	// CRD's expireAfter default): what nodecast computes and what a scenario's NodeClaim carries
	// when it was made from the current template. defaults() then swaps in the fake provider's
	// node class, which changes Karpenter's hash; a NodeClaim's current hash is swapped with it.
	inputHash := map[string]string{}
	for _, np := range e.objs.NodePools {
		c := np.DeepCopy()
		if c.Spec.Template.Spec.ExpireAfter.Duration == nil && c.Spec.Template.Spec.ExpireAfter.Raw == nil {
			c.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("720h")
		}
		inputHash[np.Name] = c.Hash()
	}
	for _, np := range e.objs.NodePools {
		defaults(np)
		if err := e.create(np); err != nil {
			return err
		}
		np.StatusConditions().SetTrue(status.ConditionReady)
		if err := e.client.Status().Update(e.ctx, np); err != nil {
			return err
		}
		pools[np.Name] = np
	}
	claims := map[string]*v1.NodeClaim{}
	for _, nc := range e.objs.NodeClaims {
		if nc.Status.NodeName != "" {
			claims[nc.Status.NodeName] = nc
		}
	}
	for _, n := range e.objs.Nodes {
		n.Spec.ProviderID = "fake://" + n.Name
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		if len(n.Status.Capacity) == 0 {
			n.Status.Capacity = n.Status.Allocatable.DeepCopy()
		}
		if _, ok := n.Labels[corev1.LabelHostname]; !ok && !e.hostnameless {
			n.Labels[corev1.LabelHostname] = n.Name
		}
		// Ready (True unless the scenario says otherwise) since the Node's creation unless the
		// scenario gives its transition; the scenario's other conditions as written (node repair
		// reads their status, reason and lastTransitionTime).
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: n.CreationTimestamp}
		var others []corev1.NodeCondition
		for _, c := range n.Status.Conditions {
			if c.Type != corev1.NodeReady {
				others = append(others, c)
				continue
			}
			if c.Status != "" {
				ready.Status = c.Status
			}
			ready.Reason = c.Reason
			if !c.LastTransitionTime.IsZero() {
				ready.LastTransitionTime = c.LastTransitionTime
			}
		}
		ready.LastHeartbeatTime = metav1.NewTime(e.clk.Now())
		n.Status.Conditions = append([]corev1.NodeCondition{ready}, others...)
		poolName, managed := n.Labels[v1.NodePoolLabelKey]
		if managed {
			n.Labels[v1.NodeRegisteredLabelKey] = "true"
			// A Node the scenario leaves uninitialized (its NodeClaim's Initialized condition is
			// not True and the Node lacks the label) stays so; every other managed Node is
			// initialized (FORMAT.md §3.7).
			if !uninitialized(e.objs, n.Name) {
				n.Labels[v1.NodeInitializedLabelKey] = "true"
			}
		}
		created := n.CreationTimestamp
		if err := e.create(n); err != nil {
			return err
		}
		if !managed {
			continue
		}
		nc := claims[n.Name]
		if nc == nil {
			nc = &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: created}}
		}
		if nc.Labels == nil {
			nc.Labels = map[string]string{}
		}
		for k, v := range n.Labels {
			nc.Labels[k] = v
		}
		// The provider labels a NodeClaim it launches with its instance type's single-valued
		// requirements (aws cloudprovider.go instanceToNodeClaim: req.Len() == 1, reservation
		// labels excepted); a scenario's Node may leave them out, and requirement drift reads
		// them (nodecast adds the same labels from its catalog).
		if it := e.its[n.Labels[corev1.LabelInstanceTypeStable]]; it != nil {
			for key, req := range it.Requirements {
				if _, ok := nc.Labels[key]; ok || req.Operator() != corev1.NodeSelectorOpIn || req.Len() != 1 ||
					key == cloudprovider.ReservationIDLabel || strings.HasPrefix(key, "karpenter.k8s.aws/capacity-reservation") {
					continue
				}
				nc.Labels[key] = req.Values()[0]
			}
		}
		if nc.Annotations == nil {
			nc.Annotations = map[string]string{}
		}
		pool := pools[poolName]
		if pool != nil {
			// A stale hash (drift scenarios) stays as written; a current one, or none, becomes
			// the pool's hash under the fake node class.
			if h, ok := nc.Annotations[v1.NodePoolHashAnnotationKey]; !ok || h == inputHash[poolName] {
				nc.Annotations[v1.NodePoolHashAnnotationKey] = pool.Hash()
			}
			if _, ok := nc.Annotations[v1.NodePoolHashVersionAnnotationKey]; !ok {
				nc.Annotations[v1.NodePoolHashVersionAnnotationKey] = v1.NodePoolHashVersion
			}
			if nc.Spec.ExpireAfter.Duration == nil && nc.Spec.ExpireAfter.Raw == nil {
				nc.Spec.ExpireAfter = pool.Spec.Template.Spec.ExpireAfter
			}
			nc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: pool.Name, UID: pool.UID}}
		}
		nc.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}
		nc.Finalizers = []string{v1.TerminationFinalizer}
		if nc.CreationTimestamp.IsZero() {
			nc.CreationTimestamp = created
		}
		// The API server gives every object a unique UID; the fake client does not. Karpenter's
		// drift check caches a NodeClaim's passed instance-type check by UID
		// (nodeclaim/disruption/drift.go instanceTypeNotFoundCheckCache), so with every UID empty
		// the first NodeClaim that passed made Karpenter skip the check for all the others (a
		// reserved NodeClaim whose reservation is no longer selected was never InstanceTypeNotFound:
		// rdisrupt 68, 373, 1046, 1108, 1168, 1251). Deterministic, so runs stay comparable.
		if nc.UID == "" {
			nc.UID = types.UID("nodeclaim\x00" + nc.Name)
		}
		st := nc.Status.DeepCopy()
		deleting := nc.DeletionTimestamp
		// Initialized at the time the manifest says, else at the Node's creation (FORMAT.md §3.7).
		initAt := created
		for _, c := range nc.Status.Conditions {
			if c.Type == v1.ConditionTypeInitialized && !c.LastTransitionTime.IsZero() {
				initAt = c.LastTransitionTime
			}
		}
		if err := e.create(nc); err != nil {
			return err
		}
		nc.Status = *st
		nc.Status.ProviderID = n.Spec.ProviderID
		nc.Status.NodeName = n.Name
		nc.Status.Capacity = n.Status.Capacity
		nc.Status.Allocatable = n.Status.Allocatable
		nc.Status.Conditions = nil
		for _, t := range []string{v1.ConditionTypeLaunched, v1.ConditionTypeRegistered, v1.ConditionTypeInitialized} {
			nc.StatusConditions().SetTrue(t)
		}
		for i := range nc.Status.Conditions {
			nc.Status.Conditions[i].LastTransitionTime = initAt
		}
		// A Drifted condition the scenario states keeps its time: Karpenter's drift check keeps
		// (or clears) it, and the Drift method orders candidates by it.
		for _, c := range st.Conditions {
			if c.Type == v1.ConditionTypeDrifted && c.Status == metav1.ConditionTrue {
				nc.Status.Conditions = append(nc.Status.Conditions, c)
			}
		}
		if err := e.client.Status().Update(e.ctx, nc); err != nil {
			return err
		}
		// A NodeClaim the manifest states as deleting (its finalizer keeps it): written to the
		// tracker as `terminating` does for pods, so cluster state marks it for deletion (c22).
		if deleting != nil {
			cur := &v1.NodeClaim{}
			if err := e.client.Get(e.ctx, keyOf(nc), cur); err != nil {
				return err
			}
			cur.DeletionTimestamp = deleting
			if err := e.tracker.Update(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}, cur, ""); err != nil {
				return fmt.Errorf("nodeclaim %s: deletionTimestamp: %w", nc.Name, err)
			}
			nc.DeletionTimestamp = deleting
		}
	}
	ownDaemonSetPods(e.objs)
	for _, ds := range e.objs.DaemonSets {
		if err := e.create(ds); err != nil {
			return err
		}
	}
	if err := e.createDRA(); err != nil {
		return err
	}
	bound := map[string][]*corev1.Pod{}
	for _, p := range e.objs.Pods {
		// Karpenter's queue breaks ties between pods of equal requests and creation time by UID
		// (queue.go byCPUAndMemoryDescending). A real UID is random; FORMAT.md leaves it to
		// metadata.uid and nodecast then orders by (uid, namespace/name). A UID made of exactly
		// those two parts, NUL-separated, sorts the same way (and stays unique); an index-based
		// one ("pod-12" < "pod-8") imposed an order no scenario states.
		p.UID = types.UID(string(p.UID) + "\x00" + p.Namespace + "/" + p.Name)
		if randomPendingUIDs && p.Spec.NodeName == "" {
			// As an API server gives them (controller_check.go): the queue's order of equal pods
			// is then random, as in a running cluster.
			p.UID = uuid.NewUUID()
		}
		if p.Spec.NodeName == "" {
			// The claims the resourceclaim controller generated for it stay named (dra.go).
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}},
				ResourceClaimStatuses: p.Status.ResourceClaimStatuses}
		} else {
			if p.Status.Phase == "" {
				p.Status.Phase = corev1.PodRunning
			}
			// A bound pod is Ready unless the manifest says otherwise (a PDB's
			// unhealthyPodEvictionPolicy reads it).
			ready := corev1.ConditionTrue
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status != "" {
					ready = c.Status
				}
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
			bound[p.Namespace] = append(bound[p.Namespace], p)
		}
		st := p.Status
		deleting := p.DeletionTimestamp
		if err := e.create(p); err != nil {
			return err
		}
		p.Status = st
		if err := e.client.Status().Update(e.ctx, p); err != nil {
			return err
		}
		if deleting != nil {
			if err := e.terminating(p, deleting); err != nil {
				return err
			}
		}
	}
	for _, o := range e.objs.Owners {
		if err := e.create(o); err != nil {
			return err
		}
	}
	for _, pdb := range e.objs.PDBs {
		st := pdbStatus(pdb, bound[pdb.Namespace], e.objs.ExplicitPDB[pdb.Namespace+"/"+pdb.Name])
		if err := e.create(pdb); err != nil {
			return err
		}
		pdb.Status = st
		if err := e.client.Status().Update(e.ctx, pdb); err != nil {
			return err
		}
	}
	return e.syncState()
}

// terminating gives a created pod the deletionTimestamp its manifest states. The fake client
// drops a deletionTimestamp on Create (an API server never creates a terminating object) and
// refuses to change one on Update, so a terminating pod (being deleted, kept by its grace
// period) is written to the tracker directly. Without this, the harness ran such a pod as an
// active one (c20: a terminating StatefulSet pod and a terminating ReplicaSet pod both kept
// their nodes, so Karpenter deleted neither).
func (e *Env) terminating(p *corev1.Pod, at *metav1.Time) error {
	cur := &corev1.Pod{}
	if err := e.client.Get(e.ctx, keyOf(p), cur); err != nil {
		return err
	}
	cur.DeletionTimestamp = at
	if err := e.tracker.Update(corev1.SchemeGroupVersion.WithResource("pods"), cur, cur.Namespace); err != nil {
		return fmt.Errorf("pod %s: deletionTimestamp: %w", podKey(p), err)
	}
	p.DeletionTimestamp = at
	return nil
}

// ownDaemonSetPods ties each DaemonSet to the pods whose controller reference names it. nodecast
// matches a DaemonSet's pods by kind, name and namespace (FORMAT.md: a scenario need not state
// UIDs); Karpenter's cluster state by controller UID (state/cluster.go UpdateDaemonSet,
// metav1.IsControlledBy). A DaemonSet without metadata.uid gets one, and every pod reference
// naming it carries the DaemonSet's UID, so both sides see the same ownership. Before, a
// scenario's DaemonSet without a UID owned none of its pods on the Karpenter side, and its
// overhead came from the template (s08).
func ownDaemonSetPods(o *Objects) {
	for _, ds := range o.DaemonSets {
		if ds.UID == "" {
			ds.UID = types.UID("daemonset\x00" + ds.Namespace + "/" + ds.Name)
		}
		for _, p := range o.Pods {
			if p.Namespace != ds.Namespace {
				continue
			}
			for i, r := range p.OwnerReferences {
				if r.Kind == "DaemonSet" && r.Name == ds.Name && r.Controller != nil && *r.Controller {
					p.OwnerReferences[i].UID = ds.UID
				}
			}
		}
	}
}

// pdbStatus fills in what the Kubernetes disruption controller would (FORMAT.md §3.5).
func pdbStatus(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, explicit bool) policyv1.PodDisruptionBudgetStatus {
	st := pdb.Status
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	healthy := 0
	if err == nil {
		for _, p := range pods {
			if sel.Matches(labels.Set(p.Labels)) && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == "") {
				healthy++
			}
		}
	}
	st.CurrentHealthy = int32(healthy)
	st.ExpectedPods = int32(healthy)
	if explicit {
		return st
	}
	allowed := 0
	scaled := func(v *intstr.IntOrString) int {
		if v.Type == intstr.String {
			pct := 0
			fmt.Sscanf(strings.TrimSuffix(v.StrVal, "%"), "%d", &pct)
			return int(math.Ceil(float64(pct) * float64(healthy) / 100))
		}
		return v.IntValue()
	}
	if pdb.Spec.MinAvailable != nil {
		allowed = healthy - scaled(pdb.Spec.MinAvailable)
	} else if pdb.Spec.MaxUnavailable != nil {
		allowed = scaled(pdb.Spec.MaxUnavailable)
	}
	st.DisruptionsAllowed = int32(max(allowed, 0))
	st.DesiredHealthy = int32(healthy - int(st.DisruptionsAllowed))
	return st
}

// syncState feeds cluster state the way its informer controllers would, in launch order
// (creation time, then name): a controller that ran while the nodes launched inserted them into
// its node map in that order, which decides the order GetCandidates gathers equal candidates in
// (nodecast's disruption map_order; docs/karpenter-fidelity.md section 60). The fake client lists
// by name.
func (e *Env) syncState() error {
	ncs := &v1.NodeClaimList{}
	if err := e.client.List(e.ctx, ncs); err != nil {
		return err
	}
	sort.SliceStable(ncs.Items, func(i, j int) bool {
		return launchedBefore(ncs.Items[i].ObjectMeta, ncs.Items[j].ObjectMeta)
	})
	for i := range ncs.Items {
		e.cluster.UpdateNodeClaim(&ncs.Items[i])
	}
	nodes := &corev1.NodeList{}
	if err := e.client.List(e.ctx, nodes); err != nil {
		return err
	}
	sort.SliceStable(nodes.Items, func(i, j int) bool {
		return launchedBefore(nodes.Items[i].ObjectMeta, nodes.Items[j].ObjectMeta)
	})
	for i := range nodes.Items {
		if err := e.cluster.UpdateNode(e.ctx, &nodes.Items[i]); err != nil {
			return err
		}
	}
	pods := &corev1.PodList{}
	if err := e.client.List(e.ctx, pods); err != nil {
		return err
	}
	for i := range pods.Items {
		if err := e.cluster.UpdatePod(e.ctx, &pods.Items[i]); err != nil {
			return err
		}
	}
	for _, ds := range e.objs.DaemonSets {
		if err := e.cluster.UpdateDaemonSet(e.ctx, ds); err != nil {
			return err
		}
	}
	if !e.cluster.Synced(e.ctx) {
		return fmt.Errorf("cluster state did not sync")
	}
	return nil
}

// Claim is one new NodeClaim in the normalised answer.
type Claim struct {
	Pods         []string `json:"pods"`
	NodePool     string   `json:"nodePool"`
	InstanceType string   `json:"instanceType,omitempty"`
	CapacityType string   `json:"capacityType,omitempty"`
	Zone         string   `json:"zone,omitempty"`
	Price        float64  `json:"price,omitempty"`
	Options      []string `json:"options"`
	// nodecast side: the reservation a reserved NodeClaim launches into.
	ReservationID string `json:"reservationId,omitempty"`
	// Karpenter side only: every launch the AWS provider / EC2 may make.
	Launch *Launch `json:"launch,omitempty"`
	// Karpenter side only: a static pool's bare template (StaticDrift's replacement), which has
	// no instance-type options of its own.
	Static bool `json:"static,omitempty"`
	// Karpenter side only: the reservations the NodeClaim holds (its capacity-reservation-id
	// requirement after FinalizeScheduling), for reading a disagreement.
	Held []string `json:"held,omitempty"`
}

// ProvisionAnswer is the normalised provisioning answer of either side.
type ProvisionAnswer struct {
	Claims        []Claim           `json:"claims"`
	Existing      map[string]string `json:"existing"`
	Unschedulable []string          `json:"unschedulable"`
	// Pods whose scheduling Karpenter deferred to a later pass for want of reserved capacity (a
	// ReservedOfferingError: not unschedulable, preferences not relaxed; scheduler.go).
	Deferred []string `json:"deferred,omitempty"`
	Error    string   `json:"error,omitempty"`
	// nodecast side only: how many ties (Karpenter's map-order picks) nodecast disclosed.
	Ties int `json:"ties,omitempty"`
	// Static NodeClaims created before the pass (StaticCapacity gate; static.go), with the
	// pending pods the pass put on them.
	Static []Claim `json:"static,omitempty"`
	// Nodes whose NodeClaims the static deprovisioning controller deleted before the pass
	// (a static pool above its replicas; static.go), sorted.
	StaticDeleted []string `json:"staticDeleted,omitempty"`
	// oracle controller only: NodeClaims Karpenter launched during the wave with none of the
	// wave's pods nominated to them (consolidation replacements; controller_cmd.go).
	Replacements int `json:"replacements,omitempty"`
	// oracle controller only: Karpenter's FailedScheduling message per unscheduled pod.
	failures map[string]string
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func (e *Env) claim(nc *pscheduling.NodeClaim) Claim {
	c := Claim{NodePool: nc.NodePoolName}
	for _, p := range nc.Pods {
		c.Pods = append(c.Pods, podKey(p))
	}
	sort.Strings(c.Pods)
	for _, it := range nc.InstanceTypeOptions {
		c.Options = append(c.Options, it.Name)
	}
	sort.Strings(c.Options)
	c.Launch = launch(nc.InstanceTypeOptions, nc.Requirements, e.aws)
	if r := nc.Requirements.Get(labelReservationID); nc.Requirements.Has(labelReservationID) && r.Operator() == corev1.NodeSelectorOpIn {
		c.Held = r.Values()
		sort.Strings(c.Held)
	}
	if os.Getenv("ORACLE_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "claim %v: %s\n", c.Pods, nc.Requirements.String())
	}
	return c
}

func sortClaims(cs []Claim) {
	sort.Slice(cs, func(i, j int) bool { return strings.Join(cs[i].Pods, ",") < strings.Join(cs[j].Pods, ",") })
}

// Provision runs Karpenter's provisioner once (Schedule: scheduler, Solve, truncation).
// With the StaticCapacity gate on, the static provisioning controller runs first (static.go);
// `static` is nodecast's static NodeClaims.
func (e *Env) Provision(static []Claim) (*ProvisionAnswer, error) {
	var deleted []string
	if e.staticGate {
		var err error
		if deleted, err = e.runStaticDeprovisioning(); err != nil {
			return nil, err
		}
		if err := e.runStatic(static); err != nil {
			return nil, err
		}
	}
	res, err := e.prov.Schedule(e.ctx)
	if err != nil {
		return nil, err
	}
	a := &ProvisionAnswer{Existing: map[string]string{}, Claims: []Claim{}, Unschedulable: []string{}, StaticDeleted: deleted}
	for _, nc := range res.NewNodeClaims {
		a.Claims = append(a.Claims, e.claim(nc))
	}
	sortClaims(a.Claims)
	for _, n := range res.ExistingNodes {
		for _, p := range n.Pods {
			if c := e.static[n.Name()]; c != nil {
				c.Pods = append(c.Pods, podKey(p))
				continue
			}
			a.Existing[podKey(p)] = n.Name()
		}
	}
	for _, c := range e.static {
		sort.Strings(c.Pods)
		a.Static = append(a.Static, *c)
	}
	sort.Slice(a.Static, func(i, j int) bool {
		return a.Static[i].NodePool+" "+strings.Join(a.Static[i].Pods, ",") < a.Static[j].NodePool+" "+strings.Join(a.Static[j].Pods, ",")
	})
	for p, err := range res.PodErrors {
		if pscheduling.IsReservedOfferingError(err) {
			a.Deferred = append(a.Deferred, podKey(p))
		} else {
			a.Unschedulable = append(a.Unschedulable, podKey(p))
		}
	}
	// A pod the pass decided on but that is in no result: with no dynamic NodePool, Schedule
	// marks every pod of the pass "no dynamic nodepools found" in cluster state and returns no
	// results (provisioner.go, ErrNodePoolsNotFound). Such a pod stays pending.
	decided := map[string]bool{}
	for _, p := range a.Unschedulable {
		decided[p] = true
	}
	for _, p := range a.Deferred {
		decided[p] = true
	}
	for p := range a.Existing {
		decided[p] = true
	}
	for _, c := range a.Claims {
		for _, p := range c.Pods {
			decided[p] = true
		}
	}
	for _, c := range a.Static {
		for _, p := range c.Pods {
			decided[p] = true
		}
	}
	pods := &corev1.PodList{}
	if err := e.client.List(e.ctx, pods); err != nil {
		return nil, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !decided[podKey(p)] && !e.cluster.PodSchedulingDecisionTime(types.NamespacedName{Namespace: p.Namespace, Name: p.Name}).IsZero() {
			a.Unschedulable = append(a.Unschedulable, podKey(p))
		}
	}
	sort.Strings(a.Unschedulable)
	sort.Strings(a.Deferred)
	return a, nil
}

func keyOf(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }

// uninitialized: the scenario's NodeClaim for Node `name` has an Initialized condition that is
// not True and the Node has no karpenter.sh/initialized label (Karpenter sets both together).
func uninitialized(o *Objects, name string) bool {
	for _, n := range o.Nodes {
		if n.Name == name {
			if _, ok := n.Labels[v1.NodeInitializedLabelKey]; ok {
				return false
			}
		}
	}
	for _, nc := range o.NodeClaims {
		if nc.Status.NodeName != name {
			continue
		}
		for _, c := range nc.Status.Conditions {
			if c.Type == v1.ConditionTypeInitialized && c.Status != metav1.ConditionTrue {
				return true
			}
		}
	}
	return false
}

// launchedBefore: creation time, then name (no time counts as earliest, as in nodecast).
func launchedBefore(a, b metav1.ObjectMeta) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// Package controller runs the real Karpenter v1.15 controllers (issue 36, part 3) against a real
// API server: envtest's kube-apiserver and etcd, Karpenter's CRDs installed, Karpenter's operator
// and its whole controller set (controllers.NewControllers: provisioning, NodeClaim lifecycle,
// disruption, termination, ...) started in this process with a cloud provider serving the
// instance types the caller gives (the oracle's, i.e. nodecast's resolved catalog).
//
// No kubelet and no kube-scheduler run, so the harness plays both, kwok-style: a NodeClaim that
// Karpenter launched gets a Node (its labels, capacity and allocatable, Ready), and pods are bound
// to the NodeClaim (or Node) Karpenter nominated them to once that node is initialized. It records
// what Karpenter did: each launch (the NodeClaim as Karpenter asked the cloud provider for it) and
// each pod's nomination or scheduling failure, from Karpenter's own events.
package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/awslabs/operatorpkg/reconciler"
	"github.com/awslabs/operatorpkg/singleton"
	"github.com/awslabs/operatorpkg/status"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"k8s.io/client-go/kubernetes/scheme"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator"
	testv1alpha1 "sigs.k8s.io/karpenter/pkg/test/v1alpha1"
)

// Options of one harness (one per process: Karpenter's operator registers global metrics).
type Options struct {
	// Assets holds envtest's kube-apiserver and etcd (make envtest-bin).
	Assets string
	// CRDDirs: Karpenter's pkg/apis/crds and pkg/test/v1alpha1/crds (the fake provider's node class).
	CRDDirs []string
	// Karpenter's --batch-idle-duration / --batch-max-duration.
	BatchIdle, BatchMax time.Duration
	// Where Karpenter's and the control plane's logs go.
	LogDir string
	// The instance types the cloud provider serves until SetInstanceTypes changes them.
	InstanceTypes []*cloudprovider.InstanceType
}

// LaunchPick chooses the offering a NodeClaim launches into, as the real cloud provider would:
// its instance type, zone and capacity type. ok false leaves the choice to Karpenter's fake
// provider (cheapest type, its reserved offering first, else its first compatible offering).
type LaunchPick func(nc *v1.NodeClaim, its []*cloudprovider.InstanceType) (instanceType, zone, capacityType string, ok bool)

// Launch is one NodeClaim Karpenter asked the cloud provider to create, as it asked.
type Launch struct {
	NodeClaim *v1.NodeClaim // spec and labels as Karpenter wrote them (requirements = its options)
	Created   *v1.NodeClaim // what the cloud provider answered (instance type, zone, capacity type)
	At        time.Time
}

// Harness is a running control plane with Karpenter's controllers.
type Harness struct {
	env    *envtest.Environment
	Config *rest.Config
	// Client talks to the API server directly (no cache): the harness reads what it just wrote.
	Client client.Client
	cp     *fake.CloudProvider
	cancel context.CancelFunc
	// Where Karpenter's log (karpenter.log) and the control plane's are written.
	logDir string

	mu sync.Mutex
	// Per scenario (Reset empties them): launches in order; the first and the latest nomination
	// of each pod ("ns/name" -> "nodeclaim/X" or "node/Y"); pods Karpenter failed to schedule.
	launches  []Launch
	first     map[string]string
	latest    map[string]string
	failed    map[string]string
	lastEvent time.Time
	// The last Nominated event (Karpenter holds a nominated node out of disruption for a while).
	lastNomination time.Time
	// Nodes Karpenter's disruption queue marked (the karpenter.sh/disrupted taint it puts on a
	// command's candidates before it launches their replacements), when the harness first saw it.
	disrupted map[string]time.Time

	// disruptionGate: held by each pass of Karpenter's disruption controller and by
	// SetBudgetsAtOnce (gatedDisruption). cached: Karpenter's own (informer-backed) client.
	disruptionGate sync.Mutex
	cached         client.Client

	// The scenario's timeline for `nodecast simulate` (timeline.go).
	tl *timeline
	// pick: the launch choice for the current scenario's catalog (SetInstanceTypes; nil = the
	// fake provider's own).
	pick LaunchPick
}

// gatedDisruption is Karpenter's disruption controller with every pass taken under the harness's
// gate, so that the harness can change all NodePools' budgets between two passes. Karpenter
// reads each NodePool's budget as it computes, and the API has no write of several objects: in
// the run of 19:33 a pass that ran after the harness had opened the first NodePool's budget
// (by name) and before the others decided on that pool's nodes alone (ctl-4-d, ctl-154-d).
type gatedDisruption struct {
	inner *disruption.Controller
	gate  *sync.Mutex
}

func (g gatedDisruption) Name() string { return g.inner.Name() }

// Register as Karpenter's disruption controller registers itself: a singleton reconciler.
func (g gatedDisruption) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named(g.Name()).
		WatchesRawSource(singleton.Source()).
		Complete(singleton.AsReconciler(g))
}

func (g gatedDisruption) Reconcile(ctx context.Context) (reconciler.Result, error) {
	g.gate.Lock()
	defer g.gate.Unlock()
	return g.inner.Reconcile(ctx)
}

// SetBudgetsAtOnce runs write (the harness's edit of every NodePool's disruption block) between
// two passes of Karpenter's disruption controller, and lets the next pass start only once
// Karpenter's own cache holds every NodePool's disruption block as the API server returns it
// afterwards (the spec alone: Karpenter's status writes keep changing the resourceVersion).
func (h *Harness) SetBudgetsAtOnce(ctx context.Context, write func() error) error {
	h.disruptionGate.Lock()
	defer h.disruptionGate.Unlock()
	if err := write(); err != nil {
		return err
	}
	blocks := func(c client.Client) (map[string]string, error) {
		list := &v1.NodePoolList{}
		if err := c.List(ctx, list); err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, np := range list.Items {
			b, err := json.Marshal(np.Spec.Disruption)
			if err != nil {
				return nil, err
			}
			out[np.Name] = string(b)
		}
		return out, nil
	}
	want, err := blocks(h.Client)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		seen, err := blocks(h.cached)
		if err != nil {
			return err
		}
		if maps.Equal(seen, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Karpenter's cache did not see the NodePools' new disruption blocks within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recordingProvider is Karpenter's fake cloud provider (instance types from the caller) with
// every Create recorded, and its launch choice made as the real provider would (the harness's
// LaunchPick). The fake launches the cheapest compatible instance type into that type's first
// compatible offering: on-demand where the NodeClaim also allows spot, while the AWS provider
// launches spot there (run14's simulate saw 15 of 100 decisions differ by it: the simulated
// cluster ran on spot, the controller's on on-demand). The pick narrows a copy of the NodeClaim's
// requirements to one instance type, zone and capacity type and the fake then launches exactly
// that; everything else it does (the NodeClaim it answers, reserved capacity when the pick
// declines) stays the fake's.
type recordingProvider struct {
	*fake.CloudProvider
	h *Harness
}

func (p recordingProvider) Create(ctx context.Context, nc *v1.NodeClaim) (*v1.NodeClaim, error) {
	asked := nc.DeepCopy()
	p.h.mu.Lock()
	pick, its := p.h.pick, p.CloudProvider.InstanceTypes
	p.h.mu.Unlock()
	launchAs := nc
	if pick != nil {
		if it, zone, ct, ok := pick(nc, its); ok {
			launchAs = Narrowed(nc, it, zone, ct)
		}
	}
	created, err := p.CloudProvider.Create(ctx, launchAs)
	if err == nil {
		awsLabels(created)
		p.h.mu.Lock()
		p.h.launches = append(p.h.launches, Launch{NodeClaim: asked, Created: created.DeepCopy(), At: time.Now()})
		p.h.lastEvent = time.Now()
		p.h.mu.Unlock()
	}
	return created, err
}

// awsLabels drops the capacity-reservation labels of a NodeClaim that is not reserved. The fake
// labels a launch with every In requirement of its type and offering, so a spot or on-demand
// NodeClaim carried karpenter.k8s.aws/capacity-reservation-id, -type and -interruptible with
// empty values; the AWS provider sets them only on reserved capacity (cloudprovider.go
// instanceToNodeClaim). Karpenter's multi-node consolidation prices a candidate by the offerings
// compatible with its labels (filterOutSameInstanceType), and an empty reservation label matched
// none, so the controller priced the candidate at 0 and replaced nothing where the same cluster
// on AWS would have (run15's ctl-18; nodecast read the labels the same way on the harness's input
// and replaced on the simulator's own nodes).
func awsLabels(nc *v1.NodeClaim) {
	if nc.Labels[v1.CapacityTypeLabelKey] == v1.CapacityTypeReserved {
		return
	}
	for key := range nc.Labels {
		if strings.HasPrefix(key, "karpenter.k8s.aws/capacity-reservation") {
			delete(nc.Labels, key)
		}
	}
}

// Narrowed: a copy of the NodeClaim whose instance-type, zone and capacity-type requirements
// allow exactly the picked offering (their minValues dropped: the pick is one type, and Karpenter
// checked minValues when it made the NodeClaim). Other requirements stay.
func Narrowed(nc *v1.NodeClaim, instanceType, zone, capacityType string) *v1.NodeClaim {
	out := nc.DeepCopy()
	pinned := map[string]string{corev1.LabelInstanceTypeStable: instanceType, corev1.LabelTopologyZone: zone, v1.CapacityTypeLabelKey: capacityType}
	reqs := lo.Reject(out.Spec.Requirements, func(r v1.NodeSelectorRequirementWithMinValues, _ int) bool { return pinned[r.Key] != "" })
	for _, key := range []string{corev1.LabelInstanceTypeStable, corev1.LabelTopologyZone, v1.CapacityTypeLabelKey} {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{pinned[key]}})
	}
	out.Spec.Requirements = reqs
	return out
}

// capture sees every event Karpenter publishes before its recorder deduplicates them.
type capture struct {
	inner events.Recorder
	h     *Harness
}

func (c capture) Publish(evts ...events.Event) {
	for _, e := range evts {
		c.h.observe(e)
	}
	c.inner.Publish(evts...)
}

func (h *Harness) observe(e events.Event) {
	pod, ok := e.InvolvedObject.(*corev1.Pod)
	if !ok {
		return
	}
	key := pod.Namespace + "/" + pod.Name
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e.Reason {
	case events.Nominated:
		// "Pod should schedule on: nodeclaim/X, node/Y" (scheduling/events.go NominatePodEvent)
		target := strings.TrimPrefix(e.Message, "Pod should schedule on: ")
		if _, ok := h.first[key]; !ok {
			h.first[key] = target
		}
		h.latest[key] = target
		delete(h.failed, key)
		h.lastEvent = time.Now()
		h.lastNomination = h.lastEvent
		h.noteNomination(key, target, h.lastEvent)
	case events.FailedScheduling:
		if _, ok := h.latest[key]; !ok {
			h.failed[key] = e.Message
		}
		h.lastEvent = time.Now()
	}
}

// Start brings up the API server, installs the CRDs and starts Karpenter's controllers.
func Start(o Options) (*Harness, error) {
	h := &Harness{logDir: o.LogDir, first: map[string]string{}, latest: map[string]string{}, failed: map[string]string{}, disrupted: map[string]time.Time{}, tl: newTimeline()}
	// envtest allows etcd and kube-apiserver 20 s each to start and the CRDs 10 s to be served
	// (its defaults): a 2-core machine under `make test` (or eight of these processes starting
	// at once) takes longer, and Start failed (`go test ./controller` "failed once at 36 s under
	// load"). Both are waits for readiness, polled, so a longer limit costs nothing when it is
	// fast; KUBEBUILDER_CONTROLPLANE_START_TIMEOUT still overrides the first.
	h.env = &envtest.Environment{CRDDirectoryPaths: o.CRDDirs, ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: o.Assets,
		CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: 3 * time.Minute}}
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		h.env.ControlPlaneStartTimeout = 5 * time.Minute
	}
	// The control plane's own output, beside Karpenter's log (envtest discards it): a start that
	// fails says why there.
	for name, set := range map[string]func(f *os.File){
		"kube-apiserver.log": func(f *os.File) { api := h.env.ControlPlane.GetAPIServer(); api.Out, api.Err = f, f },
		"etcd.log": func(f *os.File) {
			h.env.ControlPlane.Etcd = &envtest.Etcd{Out: f, Err: f}
		},
	} {
		f, err := os.Create(filepath.Join(o.LogDir, name))
		if err != nil {
			return nil, err
		}
		set(f)
	}
	cfg, err := h.env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest (kube-apiserver and etcd from %s): %w", o.Assets, err)
	}
	h.Config = cfg
	if h.Client, err = client.New(cfg, client.Options{Scheme: scheme.Scheme}); err != nil {
		return nil, err
	}
	user, err := h.env.ControlPlane.AddUser(envtest.User{Name: "karpenter", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return nil, err
	}
	kcPath := filepath.Join(o.LogDir, "kubeconfig")
	if err := os.WriteFile(kcPath, kc, 0o600); err != nil {
		return nil, err
	}
	// Karpenter's operator reads its options from os.Args and its API server from KUBECONFIG.
	os.Setenv("KUBECONFIG", kcPath)
	args := os.Args
	os.Args = []string{"karpenter",
		"--disable-leader-election=true",
		"--metrics-port=0", "--health-probe-port=0",
		"--log-level=info",
		"--log-output-paths=" + filepath.Join(o.LogDir, "karpenter.log"),
		"--log-error-output-paths=" + filepath.Join(o.LogDir, "karpenter.log"),
		"--batch-idle-duration=" + o.BatchIdle.String(),
		"--batch-max-duration=" + o.BatchMax.String(),
	}
	ctx, op := operator.NewOperator()
	os.Args = args
	ctx, h.cancel = context.WithCancel(ctx)
	h.cp = fake.NewCloudProvider()
	h.cp.InstanceTypes = o.InstanceTypes
	undecorated := recordingProvider{CloudProvider: h.cp, h: h}
	cp := overlay.Decorate(undecorated, op.GetClient(), op.InstanceTypeStore)
	matcher := lo.Must(health.NewRepairPolicyMatcher(ctx, cp))
	cluster := state.NewCluster(op.Clock, op.GetClient(), cp, state.WithRepairPolicyMatcher(matcher))
	cs := controllers.NewControllers(ctx, op.Manager, op.Clock, op.GetClient(),
		capture{inner: op.EventRecorder, h: h}, cp, undecorated, cluster, op.InstanceTypeStore, op.PredictionStore)
	h.cached = op.GetClient()
	for i, c := range cs {
		if d, ok := c.(*disruption.Controller); ok {
			cs[i] = gatedDisruption{inner: d, gate: &h.disruptionGate}
		}
	}
	op.WithControllers(ctx, cs...)
	go op.Start(ctx)
	go h.kubeletAndScheduler(ctx)
	// The fake provider's node class, Ready (the NodePool readiness controller requires it).
	nc := &testv1alpha1.TestNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if err := h.Client.Create(ctx, nc); err != nil {
		return nil, fmt.Errorf("creating the TestNodeClass: %w", err)
	}
	nc.StatusConditions().SetTrue(status.ConditionReady)
	if err := h.Client.Status().Update(ctx, nc); err != nil {
		return nil, fmt.Errorf("marking the TestNodeClass Ready: %w", err)
	}
	return h, nil
}

// Stop ends Karpenter and the control plane.
func (h *Harness) Stop() error {
	h.cancel()
	return h.env.Stop()
}

// SetInstanceTypes changes the catalog the cloud provider serves and the launch choice on it
// (between scenarios; pick nil = the fake provider's own choice).
func (h *Harness) SetInstanceTypes(its []*cloudprovider.InstanceType, pick LaunchPick) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cp.InstanceTypes = its
	h.pick = pick
}

// Launches, first nominations, latest nominations and failures recorded since the last Reset.
func (h *Harness) Record() ([]Launch, map[string]string, map[string]string, map[string]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Launch(nil), h.launches...), clone(h.first), clone(h.latest), clone(h.failed)
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Disrupted: the Nodes Karpenter marked for disruption since the last Reset, with when the
// harness saw the mark (within its 200 ms tick).
func (h *Harness) Disrupted() map[string]time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]time.Time, len(h.disrupted))
	for k, v := range h.disrupted {
		out[k] = v
	}
	return out
}

// SinceNomination reports how long ago Karpenter last nominated a pod to a node.
func (h *Harness) SinceNomination() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.Since(h.lastNomination)
}

// Quiet reports how long ago Karpenter last launched, nominated or failed a pod.
func (h *Harness) Quiet() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.Since(h.lastEvent)
}

// kubeletAndScheduler stands in for the kubelets and kube-scheduler every 200 ms: a launched
// NodeClaim without a Node gets one; a registered Node loses its startup taints (what a
// DaemonSet agent would do); a pod Karpenter nominated is bound once its node is initialized.
func (h *Harness) kubeletAndScheduler(ctx context.Context) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := h.tick(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "controller harness: %v\n", err)
		}
	}
}

func (h *Harness) tick(ctx context.Context) error {
	claims := &v1.NodeClaimList{}
	if err := h.Client.List(ctx, claims); err != nil {
		return err
	}
	nodes := &corev1.NodeList{}
	if err := h.Client.List(ctx, nodes); err != nil {
		return err
	}
	byProvider := map[string]*corev1.Node{}
	byName := map[string]*corev1.Node{}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		byProvider[n.Spec.ProviderID] = n
		byName[n.Name] = n
		if lo.ContainsBy(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == v1.DisruptedTaintKey }) {
			h.mu.Lock()
			if _, ok := h.disrupted[n.Name]; !ok {
				h.disrupted[n.Name] = time.Now()
			}
			h.mu.Unlock()
		}
	}
	h.noteClaims(claims.Items, nodes.Items)
	// NodeClaim name -> its Node, when initialized (pods may be bound to it).
	ready := map[string]string{}
	for i := range claims.Items {
		nc := &claims.Items[i]
		if nc.Status.ProviderID == "" || nc.DeletionTimestamp != nil {
			continue
		}
		n := byProvider[nc.Status.ProviderID]
		if n == nil {
			if err := h.createNode(ctx, nc); err != nil {
				return err
			}
			continue
		}
		// The API server's TaintNodesByCondition admission adds node.kubernetes.io/not-ready to
		// a new Node; the node lifecycle controller (not running here) lifts it once the Node
		// is Ready, and a registered Node's startup taints go when its agents start.
		kept := lo.Reject(n.Spec.Taints, func(t corev1.Taint, _ int) bool {
			if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
				return true
			}
			return n.Labels[v1.NodeRegisteredLabelKey] == "true" &&
				lo.ContainsBy(nc.Spec.StartupTaints, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
		})
		if len(kept) != len(n.Spec.Taints) {
			n.Spec.Taints = kept
			if err := h.Client.Update(ctx, n); err != nil && !apierrors.IsConflict(err) {
				return err
			}
		}
		if n.Labels[v1.NodeInitializedLabelKey] == "true" && n.DeletionTimestamp == nil {
			ready[nc.Name] = n.Name
		}
	}
	h.mu.Lock()
	latest := clone(h.latest)
	h.mu.Unlock()
	pods := &corev1.PodList{}
	if err := h.Client.List(ctx, pods); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		target, ok := latest[p.Namespace+"/"+p.Name]
		if !ok || p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		node := ""
		for _, part := range strings.Split(target, ", ") {
			kind, name, _ := strings.Cut(part, "/")
			switch {
			case kind == "nodeclaim" && ready[name] != "":
				node = ready[name]
			case kind == "node" && byName[name] != nil && byName[name].Labels[v1.NodeInitializedLabelKey] == "true":
				node = name
			}
		}
		if node == "" {
			continue
		}
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		if err := h.Client.SubResource("binding").Create(ctx, p, b); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return fmt.Errorf("binding %s/%s to %s: %w", p.Namespace, p.Name, node, err)
		}
	}
	return nil
}

// createNode: what a kubelet registering the launched instance would write (kwok-style).
func (h *Harness) createNode(ctx context.Context, nc *v1.NodeClaim) error {
	labels := map[string]string{corev1.LabelHostname: nc.Name}
	for k, v := range nc.Labels {
		labels[k] = v
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: labels},
		Spec: corev1.NodeSpec{ProviderID: nc.Status.ProviderID,
			Taints: append([]corev1.Taint{v1.UnregisteredNoExecuteTaint}, nc.Spec.StartupTaints...)},
	}
	if err := h.Client.Create(ctx, n); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return fmt.Errorf("creating Node %s: %w", nc.Name, err)
	}
	now := metav1.Now()
	n.Status = corev1.NodeStatus{
		Capacity: nc.Status.Capacity, Allocatable: nc.Status.Allocatable, Phase: corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}},
	}
	return h.Client.Status().Update(ctx, n)
}

// Reset deletes what a scenario left: pods (at once: no kubelet to wait for), the given objects,
// NodePools and NodeClaims (Karpenter terminates them; finalizers still present after `wait` are
// removed), then forgets the records.
func (h *Harness) Reset(ctx context.Context, objs []client.Object, wait time.Duration) error {
	pods := &corev1.PodList{}
	if err := h.Client.List(ctx, pods); err != nil {
		return err
	}
	for i := range pods.Items {
		if err := h.Client.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for _, o := range objs {
		if err := h.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	pools := &v1.NodePoolList{}
	if err := h.Client.List(ctx, pools); err != nil {
		return err
	}
	for i := range pools.Items {
		if err := h.Client.Delete(ctx, &pools.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	claims := &v1.NodeClaimList{}
	if err := h.Client.List(ctx, claims); err != nil {
		return err
	}
	for i := range claims.Items {
		if err := h.Client.Delete(ctx, &claims.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	deadline := time.Now().Add(wait)
	for {
		left, err := h.leftovers(ctx)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, o := range left {
				o.SetFinalizers(nil)
				if err := h.Client.Update(ctx, o); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					return err
				}
				if err := h.Client.Delete(ctx, o, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			if time.Now().After(deadline.Add(30 * time.Second)) {
				return fmt.Errorf("reset: %d objects still present", len(left))
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	h.mu.Lock()
	h.launches, h.first, h.latest, h.failed = nil, map[string]string{}, map[string]string{}, map[string]string{}
	h.disrupted = map[string]time.Time{}
	h.tl = newTimeline()
	h.mu.Unlock()
	return nil
}

func (h *Harness) leftovers(ctx context.Context) ([]client.Object, error) {
	var out []client.Object
	pools := &v1.NodePoolList{}
	claims := &v1.NodeClaimList{}
	nodes := &corev1.NodeList{}
	pods := &corev1.PodList{}
	for _, l := range []client.ObjectList{pools, claims, nodes, pods} {
		if err := h.Client.List(ctx, l); err != nil {
			return nil, err
		}
	}
	for i := range pools.Items {
		out = append(out, &pools.Items[i])
	}
	for i := range claims.Items {
		out = append(out, &claims.Items[i])
	}
	for i := range nodes.Items {
		out = append(out, &nodes.Items[i])
	}
	for i := range pods.Items {
		out = append(out, &pods.Items[i])
	}
	return out, nil
}

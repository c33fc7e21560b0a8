//! Lowering: decoded documents + catalog → `Model`. The only place that knows both the
//! manifests (as users write them) and the model (what the solver works on): the model itself
//! knows nothing of manifests.

pub(crate) mod auto_mode;
mod buffers;
mod claims;
mod cluster;
mod default_spread;
mod dra;
mod gated;
mod hash_version;
mod header;
pub(crate) mod kinds;
pub mod lower_pod;
mod owners;
mod pools;
pub mod priority;
mod typed_pod;
#[cfg(test)]
pub(crate) mod typed_tests;
mod workloads;

use self::lower_pod::{has_true_annotation, read_meta, Ctx, Meta};
use crate::catalog::Tables;
use crate::error::{ErrorKind, InputError};
use crate::labels::{self, Interner};
use crate::manifest::reader::{At, Sink};
use crate::manifest::Document;
use crate::model::*;
use crate::requirements::Requirement;
use crate::resources::{Resources, NODES_KEY, PODS};
use crate::taints::{Effect, Taint};

/// Go-style duration (`30m`, `1h30m5s`, `0s`) in seconds; `Never` → Ok(None).
pub fn parse_duration(s: &str, allow_never: bool) -> Result<Option<i64>, String> {
    if allow_never && s == "Never" {
        return Ok(None);
    }
    if s.is_empty() {
        return Err("empty duration".into());
    }
    let mut total: i64 = 0;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' if chars.peek() == Some(&'s') => return Err(format!("{s:?}: sub-second units are not supported")),
            'm' => 60,
            's' => 1,
            _ => return Err(format!("{s:?} is not a duration")),
        };
        let n: i64 = num.parse().map_err(|_| format!("{s:?} is not a duration"))?;
        total = n.checked_mul(unit).and_then(|v| total.checked_add(v)).ok_or_else(|| format!("{s:?} is too long"))?;
        num.clear();
        any = true;
    }
    if !num.is_empty() || !any {
        return Err(format!("{s:?} is not a duration (e.g. 30s, 5m, 720h{})", if allow_never { ", Never" } else { "" }));
    }
    Ok(Some(total))
}

pub const DURATION_HELP: &str = "a duration such as 30s, 5m, 1h30m or 720h";

struct Lowering {
    interner: Interner,
    resources: crate::resources::ResourceNames,
    errors: Vec<InputError>,
    skipped: Vec<Skipped>,
    node_pools: Vec<NodePool>,
    node_classes: Vec<NodeClass>,
    pods: Vec<Pod>,
    daemonsets: Vec<DaemonSet>,
    nodes: Vec<ExistingNode>,
    claims: Vec<ExistingNode>,
    pdbs: Vec<Pdb>,
    /// Capacity reservations of `describe-capacity-reservations` documents.
    reservations: Vec<crate::model::reservation::Reservation>,
    /// Spot price history, on-demand prices and zone offerings of the inputs.
    price_inputs: crate::catalog::prices::PriceInputs,
    /// Training runtimes of the input, for the TrainJobs that reference them.
    runtimes: Vec<kinds::Runtime>,
    /// The input's PriorityClasses, read up front (pods may come first; priority.rs).
    priority_classes: priority::PriorityClasses,
    /// NodeOverlays of the input, resolved into the catalog when the gate is on (`gated`).
    overlays: Vec<crate::catalog::overlay::Overlay>,
    /// The input each run of pods / NodePools came from: (index of the run's first, source),
    /// in order. A model Pod carries no source, yet a duplicate name must say which file.
    pod_sources: Vec<(usize, Option<String>)>,
    pool_sources: Vec<(usize, Option<String>)>,
    /// CapacityBuffers and the shapes they may copy, resolved in `finish` (`buffers`).
    buffers: buffers::Collected,
    /// Pods the ML kinds expanded to so far (each with a spec of its own), against
    /// `kinds::MAX_PODS` for the whole request.
    expanded_pods: i64,
    /// A `too-many-pods` error was reported: later objects are skipped silently.
    pods_refused: bool,
    /// The `items[i]` of a `kind: List` each run of pods came from (None outside a List), in the
    /// same form: an error about a pod of a List names its item, not just "document 0".
    pod_items: Vec<(usize, Option<String>)>,
    /// The pods each workload object expanded to, and the input's own Pod objects: their
    /// controllers' counts are reconciled once every object is read (owners.rs).
    expansions: Vec<owners::Expansion>,
    explicit: Vec<(usize, owners::Phase)>,
    /// Each NodeClaim's hash annotations and each NodePool's hash-version annotation, for the
    /// hash controller's version upgrade (`hash_version`) once every object is read.
    claim_hashes: Vec<hash_version::ClaimHash>,
    /// Each Node's `spec.providerID` (with the Node's name): Karpenter's cluster state keys nodes
    /// by provider ID, so a NodeClaim joins the Node whose provider ID its `status.providerID` is.
    node_provider_ids: Vec<(String, String)>,
    pool_hash_versions: Vec<(String, Option<String>)>,
    /// The resource.k8s.io/v1 objects (`dra`), the slices with their pool generation and
    /// count, the errors that apply only when they count, and their `skipped` entries
    /// (document, kind), which stand only while `--ignore-dra-requests` is true.
    dra: crate::dra::Dra,
    dra_slices: Vec<(crate::dra::Slice, i64, i64)>,
    dra_unmodelled: Vec<InputError>,
    dra_skipped: Vec<(usize, String)>,
    /// The input enables built-in Auto Mode NodePools, so EKS provisions the `default` NodeClass.
    auto_default_class: bool,
    /// Services, workload selectors and pods' controllers: what Karpenter's default topology
    /// spread deduction reads (`default_spread`, with `settings.schedulerConfig`).
    default_spread: default_spread::Collected,
}

/// NodePools × catalog instance types one request may hold (README, "Bounds"): memory and
/// time of a plan grow with this product; 4,000,000 is 2,973 NodePools on the embedded AWS
/// catalog (1,345 types), far beyond the few dozen of real clusters; at the cap a plan with
/// 1,001 pods peaks at 114 MB of heap (core/tests/bounds_memory.rs).
pub const MAX_POOL_TYPE_PAIRS: usize = 4_000_000;

/// Pods one request may hold, across every object (bare pods, workloads, ML kinds): each costs
/// memory in the model and time in every scheduling pass, so the bound is on the sum, checked
/// before an object's pods are made (README "Bounds").
pub const MAX_REQUEST_PODS: i64 = 2_000_000;

/// The source of item `i` in runs recorded as (first index, source).
fn source_of(runs: &[(usize, Option<String>)], i: usize) -> Option<&str> {
    let at = runs.partition_point(|(first, _)| *first <= i);
    runs.get(at.checked_sub(1)?)?.1.as_deref()
}

/// The node class a NodePool's `nodeClassRef` names: same name and same kind (an Auto Mode
/// NodeClass and an EC2NodeClass may share a name).
pub fn node_class_index(np: &NodePool, classes: &[NodeClass]) -> Option<usize> {
    let name = np.node_class.as_ref()?;
    classes.iter().position(|c| &c.name == name && c.auto_mode == np.auto_mode)
}

/// `<source>, document <n>` (or `document <n>` without a source) for error messages.
fn where_in(source: Option<&str>, document: usize) -> String {
    match source {
        Some(s) => format!("{s}, document {document}"),
        None => format!("document {document}"),
    }
}

/// Lower every document. Unknown kinds are reported in `skipped`; errors are collected.
pub fn lower(docs: &[Document], catalog: crate::catalog::Catalog, tables: Tables, settings: Settings) -> Result<Model, Vec<InputError>> {
    let mut l = Lowerer::new(tables, docs);
    for doc in docs {
        // Cancelled: the caller drops the answer (crate::interrupt).
        if crate::interrupt::poll() {
            break;
        }
        l.add(doc);
    }
    l.finish(catalog, settings)
}

/// Lowering one document at a time, so a caller can decode, lower and drop each document before
/// the next is decoded (`load::model` does for texts the fast YAML reader takes): the decoded
/// trees of a 20,000-pod input are then never all in memory at once. [`lower`] is this over a
/// slice; the model is the same whichever way the documents arrive, as long as they arrive in
/// input order.
pub struct Lowerer(Lowering);

impl Lowerer {
    /// `runtime_docs`: the documents that may hold the training runtimes TrainJobs refer to
    /// (they may come after the TrainJob in the input, so they are collected up front).
    pub fn new(tables: Tables, runtime_docs: &[Document]) -> Lowerer {
        Lowerer(Lowering {
            interner: tables.interner,
            resources: tables.resources,
            errors: Vec::new(),
            skipped: Vec::new(),
            node_pools: Vec::new(),
            node_classes: Vec::new(),
            pods: Vec::new(),
            daemonsets: Vec::new(),
            nodes: Vec::new(),
            claims: Vec::new(),
            pdbs: Vec::new(),
            reservations: Vec::new(),
            price_inputs: Default::default(),
            runtimes: kinds::Runtime::collect(runtime_docs),
            priority_classes: priority::PriorityClasses::collect(runtime_docs),
            overlays: Vec::new(),
            pod_sources: Vec::new(),
            pool_sources: Vec::new(),
            buffers: buffers::Collected::default(),
            expanded_pods: 0,
            pods_refused: false,
            pod_items: Vec::new(),
            expansions: Vec::new(),
            explicit: Vec::new(),
            claim_hashes: Vec::new(),
            node_provider_ids: Vec::new(),
            pool_hash_versions: Vec::new(),
            dra: Default::default(),
            dra_slices: Vec::new(),
            dra_unmodelled: Vec::new(),
            dra_skipped: Vec::new(),
            auto_default_class: false,
            default_spread: Default::default(),
        })
    }

    /// Lower the next document of the input.
    pub fn add(&mut self, doc: &Document) {
        self.0.document(doc);
    }

    /// Lower the next document of the input when it is a plain Pod in its typed shape (decoded
    /// from JSON text without a tree: `manifest::decode_streamed`); `false` when it must be
    /// lowered as a [`Document`] instead (nothing was changed then).
    pub fn add_typed_pod(&mut self, pod: &crate::manifest::typed::PodDoc, source: Option<&str>, index: usize, prefix: &str) -> bool {
        let l = &mut self.0;
        let before = l.pods.len();
        if !l.typed_pod(pod, index) {
            return false;
        }
        #[cfg(test)]
        typed_tests::STREAMED_TYPED.with(|c| c.set(c.get() + 1));
        // `document`'s bookkeeping for one new pod.
        l.pod_sources.push((before, source.map(str::to_string)));
        l.pod_items.push((before, (!prefix.is_empty()).then(|| prefix.to_string())));
        true
    }

    /// The checks that need every object (duplicates, pool bounds, node classes) and the model.
    pub fn finish(self, catalog: crate::catalog::Catalog, settings: Settings) -> Result<Model, Vec<InputError>> {
        let mut l = self.0;
        let mut catalog = catalog;
        // The user's prices and zones first: NodeOverlays adjust the prices Karpenter's pricing
        // provider gives, and reservations are added on top of the offerings.
        crate::catalog::prices::apply(&mut catalog, &mut l.interner, &l.price_inputs, &mut l.errors);
        let node_overlays = match l.resolve_overlays(&mut catalog, &settings) {
            Ok(s) => s,
            Err(e) => {
                l.errors.extend(e);
                Vec::new()
            }
        };
        let keys = Keys {
            zone: l.interner.intern(labels::ZONE),
            capacity_type: l.interner.intern(labels::CAPACITY_TYPE),
            instance_type: l.interner.intern(labels::INSTANCE_TYPE),
            hostname: l.interner.intern(labels::HOSTNAME),
            nodepool: l.interner.intern(labels::NODEPOOL),
            arch: l.interner.intern(labels::ARCH),
            os: l.interner.intern(labels::OS),
            region: l.interner.intern(labels::REGION),
            registered: l.interner.intern("karpenter.sh/registered"),
            initialized: l.interner.intern("karpenter.sh/initialized"),
            on_demand: l.interner.intern(labels::ON_DEMAND),
            spot: l.interner.intern(labels::SPOT),
            reserved: l.interner.intern(labels::RESERVED),
            true_value: l.interner.intern("true"),
            reservation_id: l.interner.intern(labels::RESERVATION_ID),
            reservation_type: l.interner.intern(labels::RESERVATION_TYPE),
            reservation_interruptible: l.interner.intern(labels::RESERVATION_INTERRUPTIBLE),
            node_class: l.interner.intern(labels::EC2_NODE_CLASS),
        };
        // The stages below walk every pod (800,000 take ~0.5 s in all) and none polls inside,
        // so a cancelled call stops between them; the answer is dropped (crate::interrupt).
        let cancelled = || crate::interrupt::poll().then(Vec::new);
        l.merge_claims();
        hash_version::apply(&mut l.nodes, &l.claim_hashes, &l.node_pools, &l.pool_hash_versions);
        // Default spreads before owners: reconciling removes replicas, which would shift the
        // explicit pods' indices the deduction keys their controllers by.
        if let Some(cfg) = &settings.scheduler_config {
            let defaults = cfg.default_constraints();
            if !defaults.is_empty() {
                default_spread::inject(&mut l.pods, &l.default_spread, defaults, &mut l.interner);
                // Read, not skipped: Services choose the pods' spread selectors.
                l.skipped.retain(|s| s.kind != "Service" || !s.reason.contains("does not influence"));
            }
        }
        // Owners first: reconciling removes replicas a controller already runs, which would
        // shift the indices of the buffers' virtual pods appended after them.
        let jobs = l.reconcile_owners();
        l.daemonset_pods();
        if let Some(e) = cancelled() {
            return Err(e);
        }
        let capacity_buffers = l.expand_buffers(&settings);
        if settings.feature_gates.pod_deletion_cost_management {
            // Karpenter writes pod-deletion-cost itself and no longer reads it as a cost.
            for p in l.pods.iter_mut() {
                p.eviction_cost = p.eviction_cost_managed;
            }
        }
        // An in-flight NodeClaim without status.allocatable: take its instance type's from the catalog.
        for n in l.nodes.iter_mut().filter(|n| n.in_flight && n.allocatable.get(crate::resources::CPU) == 0) {
            if let Some(it) = n.instance_type.as_ref().and_then(|t| catalog.types.iter().find(|x| &x.name == t)) {
                n.allocatable = it.allocatable.clone();
                n.capacity = it.capacity.clone();
            }
        }
        if let Some(e) = cancelled() {
            return Err(e);
        }
        l.check_duplicates();
        if let Some(e) = cancelled() {
            return Err(e);
        }
        l.check_pool_bound(catalog.types.len());
        let dra = l.finish_dra(&settings);
        if l.auto_default_class && !l.node_classes.iter().any(|c| c.auto_mode && c.name == auto_mode::DEFAULT_CLASS) {
            l.node_classes.push(auto_mode::default_class());
        }
        for np in l.node_pools.iter_mut() {
            np.node_class_index = node_class_index(np, &l.node_classes);
            // Karpenter's status narrows the answer: the AWS provider builds a class's offerings
            // only in the zones of its resolved subnets (offering.go, `nodeClass.ZoneInfo()`),
            // and none at all without subnets. The NodeClaim template gets that zone set;
            // `spec_requirements` (requirement drift) stays the NodePool's own.
            if let Some(zones) = np.node_class_index.and_then(|i| l.node_classes[i].status_zones.as_ref()) {
                let values = zones.iter().map(|z| l.interner.intern(z)).collect::<Vec<_>>();
                np.requirements.add(keys.zone, crate::requirements::Requirement::in_values(values), &l.interner);
            }
        }
        if !l.errors.is_empty() {
            // Lowering refuses objects Kubernetes would not accept (or nodecast cannot model):
            // errors of the objects, like admission's; nodecast's own bounds stay limits.
            return Err(l
                .errors
                .into_iter()
                .map(|e| if matches!(e.kind, ErrorKind::Limit | ErrorKind::Catalog) { e } else { e.kind(ErrorKind::Admission) })
                .collect());
        }
        // The pods are final: number identical specs so caches share work across them.
        crate::model::pod::intern_specs(&mut l.pods);
        let gate = crate::catalog::resolve::gate(&settings);
        let repair_policies = crate::repair_policies::PolicySet::of(settings.repair_policies.as_deref());
        let mut model = Model {
            interner: l.interner,
            resources: l.resources,
            keys,
            catalog,
            settings,
            node_pools: l.node_pools,
            node_classes: l.node_classes,
            pods: l.pods,
            daemonsets: l.daemonsets,
            nodes: l.nodes,
            pdbs: l.pdbs,
            skipped: l.skipped,
            node_overlays,
            jobs,
            reservations: l.reservations,
            reservation_selections: Vec::new(),
            reservation_gate: gate,
            reservation_time: None,
            static_launches: Vec::new(),
            capacity_buffers,
            buffer_hosts: Default::default(),
            dra,
            repair_policies,
        };
        // NodeOverlays adjusted the catalog above; reserved offerings are added on top of it.
        crate::catalog::resolve::apply(&mut model, None, gate);
        Ok(model)
    }
}

impl Lowering {
    fn document(&mut self, doc: &Document) {
        let (pods, pools) = (self.pods.len(), self.node_pools.len());
        let (skipped, expansions) = (self.skipped.len(), self.expansions.len());
        // A plain Pod goes the typed way when it can (typed_pod.rs), the tree way otherwise. The
        // typed way is a speed-up only (both make the same Pod): the wasm package leaves it out
        // (core feature `typed-pods`), its decoders cost ~50 kB of the gzip budget.
        let typed = cfg!(feature = "typed-pods")
            && crate::manifest::typed::PodDoc::of_value(&doc.value).is_some_and(|p| self.typed_pod(&p, doc.index));
        if !typed {
            self.document_objects(doc);
        }
        for s in &mut self.skipped[skipped..] {
            s.source = s.source.take().or_else(|| doc.source.clone());
        }
        for e in &mut self.expansions[expansions..] {
            e.source = doc.source.clone();
        }
        if self.pods.len() > pods {
            self.pod_sources.push((pods, doc.source.clone()));
            self.pod_items.push((pods, (!doc.prefix.is_empty()).then(|| doc.prefix.clone())));
        }
        if self.node_pools.len() > pools {
            for np in &mut self.node_pools[pools..] {
                np.source = doc.source.clone();
                np.prefix = doc.prefix.clone();
            }
            self.pool_sources.push((pools, doc.source.clone()));
        }
    }

    fn document_objects(&mut self, doc: &Document) {
        let kind = doc.kind().to_string();
        let api = doc.api_version().to_string();
        let group = api.split_once('/').map(|(g, _)| g).unwrap_or("");
        let root = At::root(&doc.value, &doc.prefix);
        let mut errors = std::mem::take(&mut self.errors);
        let object = || doc.object();
        let mut sink = Sink { document: doc.index, object: &object, errors: &mut errors };
        let before = sink.errors.len();
        // Node groups and the Cluster Autoscaler's settings (eksctl, `terraform show -json`):
        // the Cluster Autoscaler engine reads them (`node_groups`); Karpenter's side skips them.
        if crate::node_groups::recognises(doc) {
            let kind = if kind.is_empty() { "terraform show -json".to_string() } else { kind.clone() };
            self.skipped.push(Skipped {
                source: doc.source.clone(),
                document: doc.index,
                kind,
                name: doc.name().to_string(),
                reason: "node groups or Cluster Autoscaler settings: read by plan --autoscaler cluster-autoscaler".into(),
            });
            self.errors = errors;
            return;
        }
        // PriorityClasses give pods their priority (priority.rs, read up front); the value must be
        // an integer, as the API server requires.
        if priority::is_priority_class(doc) {
            match root.get("value") {
                Some(at) => {
                    sink.int(&at, "an integer value (the class's priority)");
                }
                None => sink.error(&root, "required", "a PriorityClass needs `value`", "value: an integer priority"),
            }
            self.errors = errors;
            return;
        }
        // `aws ec2 describe-capacity-reservations` output: no kind, a CapacityReservations list.
        if crate::catalog::reservations::is_reservations_document(&doc.value) {
            let object = || crate::catalog::reservations::DOCUMENT_KEY.to_string();
            let mut sink = Sink { document: doc.index, object: &object, errors: sink.errors };
            let read = crate::catalog::reservations::read(&root, &mut sink, doc.source.as_deref());
            for e in sink.errors[before..].iter_mut() {
                e.source = e.source.take().or_else(|| doc.source.clone());
            }
            self.reservations.extend(read);
            self.errors = errors;
            return;
        }
        // `aws eks describe-cluster` output: which built-in Auto Mode NodePools are enabled.
        if auto_mode::is_cluster_document(&doc.value) {
            let object = || "computeConfig".to_string();
            let mut sink = Sink { document: doc.index, object: &object, errors: sink.errors };
            let pools = auto_mode::read_cluster(&root, &mut sink);
            for e in sink.errors[before..].iter_mut() {
                e.source = e.source.take().or_else(|| doc.source.clone());
            }
            self.errors = errors;
            self.auto_default_class |= !pools.is_empty();
            for name in pools {
                let value = auto_mode::builtin_pool(name);
                let builtin = Document {
                    source: Some(format!("EKS Auto Mode built-in NodePool {name}")),
                    index: 0,
                    prefix: String::new(),
                    value: std::borrow::Cow::Owned(value),
                };
                self.document(&builtin);
            }
            return;
        }
        // Spot price history, on-demand prices, instance-type offerings: no kind either.
        if crate::catalog::prices::is_price_document(&doc.value) {
            let name = crate::catalog::prices::object_of(&doc.value);
            let object = || name.to_string();
            let mut sink = Sink { document: doc.index, object: &object, errors: sink.errors };
            self.price_inputs.read(&root, &mut sink, doc.source.as_deref());
            for e in sink.errors[before..].iter_mut() {
                e.source = e.source.take().or_else(|| doc.source.clone());
            }
            self.errors = errors;
            return;
        }
        if !header::object_header(&doc.value, &root, group, &api, &kind, &mut sink) {
            if let Some(src) = &doc.source {
                for e in sink.errors[before..].iter_mut() {
                    e.source.get_or_insert_with(|| src.clone());
                }
            }
            self.errors = errors;
            return;
        }
        match (group, kind.as_str()) {
            ("", "Service") => self.default_spread.service(&root, &mut sink),
            ("", "ReplicationController") => {
                let meta = read_meta(&root, &mut sink);
                self.default_spread.owner(&root, &kind, &meta.namespace, &meta.name, &mut sink);
            }
            _ => {}
        }
        if (group, kind.as_str()) == ("", "PodTemplate") {
            // Kept for the CapacityBuffers that may name it; listed in `skipped` below.
            self.buffers.pod_template(&root, doc.source.clone(), &mut sink);
        }
        match (group, kind.as_str()) {
            ("karpenter.sh", "NodePool") => self.node_pool(&root, &mut sink),
            ("karpenter.k8s.aws", "EC2NodeClass") => self.node_class(&root, &mut sink),
            (auto_mode::GROUP, auto_mode::KIND) => {
                let meta = read_meta(&root, &mut sink);
                let spec = root.get("spec");
                self.node_classes.push(auto_mode::node_class(meta.name, spec.as_ref(), &mut sink));
            }
            ("", "Pod") => self.pod(&root, &mut sink),
            ("apps", "Deployment" | "StatefulSet" | "ReplicaSet") | ("batch", "Job" | "CronJob") => self.workload(&root, &kind, &mut sink),
            ("apps", "DaemonSet") => self.daemonset(&root, &mut sink),
            ("policy", "PodDisruptionBudget") => self.pdb(&root, &mut sink),
            ("", "Node") => {
                self.node(&root, &mut sink);
                if let Some(n) = self.nodes.last_mut() {
                    n.source = doc.source.clone();
                }
            }
            ("karpenter.sh", "NodeClaim") => self.node_claim(&root, &mut sink),
            ("karpenter.sh", "NodeOverlay") => self.node_overlay(&root, &api, doc.source.clone(), &mut sink),
            ("autoscaling.x-k8s.io", "CapacityBuffer") => self.buffers.buffer(&root, doc.source.clone(), &mut sink),
            ("resource.k8s.io", "DeviceClass" | "ResourceClaim" | "ResourceClaimTemplate" | "ResourceSlice") => {
                self.dra_object(&root, &api, &kind, &mut sink, before);
                self.skipped.push(Skipped {
                    source: doc.source.clone(),
                    document: doc.index,
                    kind: kind.clone(),
                    name: doc.name().to_string(),
                    reason: gated::gated_skip_reason(group, &api, &kind).unwrap_or_default(),
                });
                self.dra_skipped.push((doc.index, kind.clone()));
            }
            (g, k) if kinds::expands(g, k) => {
                let ctx = Ctx { interner: &mut self.interner, resources: &mut self.resources, priority_classes: &self.priority_classes };
                let before = self.pods.len();
                let budget = kinds::Budget { expanded: self.expanded_pods, request: before as i64 };
                let mut out = kinds::Out { ctx, pods: &mut self.pods, skipped: &mut self.skipped, runtimes: &self.runtimes, budget };
                kinds::expand(&root, g, &api, &kind, doc.source.clone(), &mut out, &mut sink);
                self.expanded_pods += (self.pods.len() - before) as i64;
            }
            ("", "") => {
                let at = root;
                sink.error(&at, "required", "object without `kind`/`apiVersion`", "a Kubernetes object with apiVersion and kind");
            }
            _ => self.skipped.push(Skipped {
                source: doc.source.clone(),
                document: doc.index,
                kind: kind.clone(),
                name: doc.name().to_string(),
                reason: gated::gated_skip_reason(group, &api, &kind)
                    .or_else(|| kinds::skip_reason(group, &api, &kind))
                    .unwrap_or_else(|| format!("{api} {kind} does not influence provisioning or disruption")),
            }),
        }
        if let Some(src) = &doc.source {
            for e in sink.errors[before..].iter_mut() {
                e.source.get_or_insert_with(|| src.clone());
            }
        }
        self.errors = errors;
    }

    fn ctx(&mut self) -> Ctx<'_> {
        Ctx { interner: &mut self.interner, resources: &mut self.resources, priority_classes: &self.priority_classes }
    }

    /// Refuse, before any scheduling work, more NodePool × instance-type pairs than
    /// [`MAX_POOL_TYPE_PAIRS`]: each NodePool's template holds per-type rows, so 10,000
    /// NodePools on the AWS catalog took 1.47 GB RSS and 22 s (CLI of 2026-11-26) before it.
    fn check_pool_bound(&mut self, types: usize) {
        let pools = self.node_pools.len();
        if types == 0 || pools.saturating_mul(types) <= MAX_POOL_TYPE_PAIRS {
            return;
        }
        let allowed = MAX_POOL_TYPE_PAIRS / types;
        // Located at the first NodePool past the bound.
        let np = &self.node_pools[allowed];
        let mut e = InputError::new(
            "too-many-nodepools",
            format!(
                "{pools} NodePools × {types} instance types is {} NodePool–instance type pairs; nodecast plans with at most {MAX_POOL_TYPE_PAIRS} ({allowed} NodePools on this catalog), and NodePool/{} is number {}",
                pools.saturating_mul(types),
                np.name,
                allowed + 1
            ),
        )
        .at_document(np.document)
        .object(format!("NodePool/{}", np.name))
        .help("fewer NodePools (a Karpenter cluster has a few dozen), or a catalog with fewer instance types (README: resource bounds)")
        .kind(ErrorKind::Limit);
        e.source = source_of(&self.pool_sources, allowed).map(str::to_string);
        self.errors.push(e);
    }

    /// Whether `n` more pods fit under [`MAX_REQUEST_PODS`]; the first object past it gets one
    /// located `too-many-pods` error (later ones add nothing: one error says it).
    fn room_for(&mut self, n: i64, at: &At, kind: &str, sink: &mut Sink) -> bool {
        let have = self.pods.len() as i64;
        if have.saturating_add(n) <= MAX_REQUEST_PODS {
            return true;
        }
        if !self.pods_refused {
            self.pods_refused = true;
            sink.limit(
                at,
                "too-many-pods",
                format!(
                    "this {kind} would bring the request to {} pods; nodecast answers at most {MAX_REQUEST_PODS} pods per request",
                    have.saturating_add(n)
                ),
                "fewer replicas or fewer workloads per request (README: Bounds)",
            );
        }
        false
    }

    fn check_duplicates(&mut self) {
        // One reservation id, twice (two describe outputs that overlap): EC2 ids are unique.
        let mut seen_ids = std::collections::HashMap::new();
        for r in &self.reservations {
            if let Some(&(doc, idx)) = seen_ids.get(r.id.as_str()) {
                let mut e = InputError::new(
                    "duplicate-name",
                    format!("capacity reservation {} appears twice (first at document {doc}, CapacityReservations[{idx}])", r.id),
                )
                .at_document(r.document)
                .object(crate::catalog::reservations::DOCUMENT_KEY)
                .path(format!("CapacityReservations[{}].CapacityReservationId", r.index))
                .help("give each reservation once (one describe-capacity-reservations output)");
                e.source = r.source.clone();
                self.errors.push(e);
            } else {
                seen_ids.insert(r.id.as_str(), (r.document, r.index));
            }
        }
        // Sized up front: rehashing 100,000 names as the set grew was most of this. SipHash is
        // kept on purpose: names are user input, and a weak hash could be made to collide.
        // Each error is located at the second object (source, document, name) and names where
        // the first one is.
        let mut seen = std::collections::HashMap::with_capacity(self.pods.len());
        for (i, p) in self.pods.iter().enumerate() {
            // Cancelled: stop here, the caller drops the answer (crate::interrupt).
            if i % 4096 == 4095 && crate::interrupt::poll() {
                return;
            }
            if let Some(&first) = seen.get(&(p.namespace.as_str(), p.name.as_str())) {
                let mut at = where_in(source_of(&self.pod_sources, first), self.pods[first].document);
                if let Some(item) = source_of(&self.pod_items, first) {
                    at = format!("{at}, {item}");
                }
                let mut e = InputError::new("duplicate-name", format!("two pods are named {}/{} (the first in {at})", p.namespace, p.name))
                    .at_document(p.document)
                    .object(format!("Pod/{}/{}", p.namespace, p.name))
                    .help("pod names (after workload expansion, <workload>-<i>) must be unique per namespace");
                e.source = source_of(&self.pod_sources, i).map(str::to_string);
                e.path = source_of(&self.pod_items, i).map(str::to_string);
                self.errors.push(e);
            } else {
                seen.insert((p.namespace.as_str(), p.name.as_str()), i);
            }
        }
        let mut seen = std::collections::HashMap::new();
        for (i, np) in self.node_pools.iter().enumerate() {
            if let Some(&first) = seen.get(np.name.as_str()) {
                let at = where_in(source_of(&self.pool_sources, first), self.node_pools[first].document);
                let mut e = InputError::new("duplicate-name", format!("two NodePools are named {} (the first in {at})", np.name))
                    .at_document(np.document)
                    .object(format!("NodePool/{}", np.name));
                e.source = source_of(&self.pool_sources, i).map(str::to_string);
                self.errors.push(e);
            } else {
                seen.insert(np.name.as_str(), i);
            }
        }
        let mut seen = std::collections::HashSet::new();
        for n in &self.nodes {
            if !seen.insert(n.name.as_str()) {
                self.errors.push(
                    InputError::new("duplicate-name", format!("two nodes are named {}", n.name))
                        .at_document(n.document)
                        .object(format!("Node/{}", n.name)),
                );
            }
        }
    }

    fn resource_map(&mut self, at: &At, sink: &mut Sink) -> Resources {
        let mut r = Resources::new();
        for (k, v) in sink.map(at) {
            if let Some(q) = sink.quantity(&v) {
                r.set(self.resources.intern(k), q);
            }
        }
        if r.get(PODS) == 0 {
            r.set(PODS, 110_000);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30m", true), Ok(Some(1800)));
        assert_eq!(parse_duration("1h30m5s", true), Ok(Some(5405)));
        assert_eq!(parse_duration("Never", true), Ok(None));
        assert!(parse_duration("Never", false).is_err());
        assert!(parse_duration("1d", true).is_err());
        assert!(parse_duration("500ms", true).is_err());
        assert!(parse_duration("5", true).is_err());
        assert!(parse_duration("99999999999999999999h", true).is_err());
    }
}

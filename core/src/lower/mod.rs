//! Lowering: decoded documents + catalog → `Model`. The only place that knows both the
//! manifests (as users write them) and the model (what the solver works on): the model itself
//! knows nothing of manifests.

pub(crate) mod auto_mode;
mod buffers;
mod claims;
mod default_spread;
mod dra;
mod gated;
mod hash_version;
mod header;
pub(crate) mod kinds;
pub mod lower_pod;
mod owners;

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
        self.document_objects(doc);
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
                let ctx = Ctx { interner: &mut self.interner, resources: &mut self.resources };
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
        Ctx { interner: &mut self.interner, resources: &mut self.resources }
    }

    fn node_pool(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let version = meta.annotations.iter().find(|(k, _)| k == "karpenter.sh/nodepool-hash-version").map(|(_, v)| v.clone());
        self.pool_hash_versions.push((meta.name.clone(), version));
        let interner = &mut self.interner;
        let spec = root.get("spec");
        let tmpl = spec.as_ref().and_then(|s| s.get("template"));
        let tmpl_meta = tmpl.as_ref().and_then(|t| t.get("metadata"));
        let tspec = tmpl.as_ref().and_then(|t| t.get("spec"));
        let mut pairs = Vec::new();
        if let Some(l) = tmpl_meta.as_ref().and_then(|m| m.get("labels")) {
            for (k, v) in sink.string_map(&l) {
                pairs.push((interner.intern(labels::normalize_key(&k)), interner.intern(&v)));
            }
        }
        pairs.push((interner.intern(labels::NODEPOOL), interner.intern(&meta.name)));
        let mut node_class = None;
        let mut auto = false;
        if let Some(ncr) = tspec.as_ref().and_then(|s| s.get("nodeClassRef")) {
            let group = sink.opt_scalar(&ncr, "group").unwrap_or_default();
            let kind = sink.opt_scalar(&ncr, "kind").unwrap_or_default();
            let name = sink.opt_scalar(&ncr, "name").unwrap_or_default();
            if !group.is_empty() && !kind.is_empty() {
                pairs.push((interner.intern(&format!("{group}/{}", kind.to_ascii_lowercase())), interner.intern(&name)));
            }
            auto = auto_mode::is_auto_ref(&group, &kind);
            if auto {
                pairs.push((interner.intern(auto_mode::COMPUTE_TYPE), interner.intern("auto")));
            }
            node_class = Some(name);
        }
        let labels_set = LabelSet::from_pairs(pairs);
        let mut reqs = crate::requirements::Requirements::new();
        if let Some(rs) = tspec.as_ref().and_then(|s| s.get("requirements")) {
            for r in sink.list(&rs) {
                let Some(key) = sink.opt_scalar(&r, "key") else {
                    sink.error(&r, "required", "requirement without `key`", "key: <label key>");
                    continue;
                };
                let key = labels::normalize_key(&key).to_string();
                let op_text = sink.opt_scalar(&r, "operator").unwrap_or_default();
                let Some(op) = crate::requirements::Operator::parse(&op_text) else {
                    let at = r.get("operator").unwrap_or(r);
                    sink.error(
                        &at,
                        "invalid-operator",
                        format!("unknown operator {op_text:?} for key {key:?}"),
                        "one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte",
                    );
                    continue;
                };
                let values = r.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
                let min_values =
                    r.get("minValues").and_then(|m| sink.int(&m, "an integer 1..50")).map(|m| m.clamp(0, u32::MAX as i64) as u32);
                let ids: Vec<u32> = values.iter().map(|v| interner.intern(v)).collect();
                let kid = interner.intern(&key);
                reqs.add(kid, Requirement::from_operator(op, &ids, interner).with_min_values(min_values), interner);
            }
        }
        let spec_requirements = reqs.clone();
        for (k, v) in labels_set.iter() {
            reqs.add(k, Requirement::in_values([v]), interner);
        }
        if auto {
            auto_mode::restrict(&mut reqs, interner);
        }
        let t = interner.intern("true");
        reqs.add(interner.intern("karpenter.sh/registered"), Requirement::in_values([t]), interner);
        reqs.add(interner.intern("karpenter.sh/initialized"), Requirement::in_values([t]), interner);
        let taints = tspec.as_ref().and_then(|s| s.get("taints")).map(|ts| read_taints(&ts, sink)).unwrap_or_default();
        let startup_taints = tspec.as_ref().and_then(|s| s.get("startupTaints")).map(|ts| read_taints(&ts, sink)).unwrap_or_default();
        let default_expiry = if auto { auto_mode::DEFAULT_EXPIRE_AFTER } else { 720 * 3600 };
        let expire_after = match tspec.as_ref().and_then(|s| s.get("expireAfter")) {
            None => Some(default_expiry),
            Some(at) => duration(&at, true, sink).unwrap_or(Some(default_expiry)),
        };
        // Admission already checked the format (NP-58); only the simulator's drain uses it.
        let termination_grace_period = tspec
            .as_ref()
            .and_then(|s| s.get("terminationGracePeriod"))
            .and_then(|at| parse_duration(at.v.as_str()?, false).ok().flatten())
            .or(auto.then_some(auto_mode::DEFAULT_TERMINATION_GRACE));
        let mut limits = Vec::new();
        if let Some(l) = spec.as_ref().and_then(|s| s.get("limits")) {
            for (k, v) in sink.map(&l) {
                if let Some(q) = sink.quantity(&v) {
                    let key = if k == NODES_KEY { LimitKey::Nodes } else { LimitKey::Resource(self.resources.intern(k)) };
                    limits.push((key, q));
                }
            }
        }
        let weight = spec.as_ref().and_then(|s| sink.opt_int(s, "weight", "an integer 1..100")).unwrap_or(0) as i32;
        let is_static = spec.as_ref().is_some_and(|s| s.get("replicas").is_some());
        // Admission checked it is an integer ≥ 0 (NP-06).
        let replicas = spec.as_ref().and_then(|s| sink.opt_int(s, "replicas", "an integer ≥ 0"));
        let disruption = spec.as_ref().and_then(|s| s.get("disruption")).map(|d| disruption(&d, sink)).unwrap_or(Disruption {
            policy: ConsolidationPolicy::WhenEmptyOrUnderutilized,
            consolidate_after: Some(0),
            budgets: vec![Budget::new(BudgetNodes::Percent(10), vec![], None, None)],
        });
        self.node_pools.push(NodePool {
            name: meta.name,
            weight,
            labels: labels_set,
            requirements: reqs,
            taints,
            startup_taints,
            limits,
            node_class,
            node_class_index: None,
            expire_after,
            termination_grace_period,
            disruption,
            spec_requirements,
            template_hash: crate::gohash::nodepool_template_hash(tmpl.as_ref().map(|t| t.v)).map_err(|e| e.0),
            is_static,
            replicas,
            ready: true,
            document: sink.document,
            // Filled in by `document`, which knows the input it came from.
            source: None,
            prefix: String::new(),
            auto_mode: auto,
        });
    }

    fn node_class(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut nc = NodeClass { name: meta.name, ..Default::default() };
        let Some(spec) = root.get("spec") else {
            self.node_classes.push(nc);
            return;
        };
        nc.ami_family = sink.opt_scalar(&spec, "amiFamily").unwrap_or_default();
        if nc.ami_family.is_empty() {
            if let Some(terms) = spec.get("amiSelectorTerms") {
                for t in sink.list(&terms) {
                    if let Some(alias) = sink.opt_scalar(&t, "alias") {
                        nc.ami_family = alias.split('@').next().unwrap_or("").to_string();
                    }
                }
            }
        }
        nc.raid0 = sink.opt_scalar(&spec, "instanceStorePolicy").as_deref() == Some("RAID0");
        if let Some(bdms) = spec.get("blockDeviceMappings") {
            let list = sink.list(&bdms);
            let root_dev = match nc.ami_family.to_ascii_lowercase().as_str() {
                "bottlerocket" => "/dev/xvdb",
                f if f.starts_with("windows") => "/dev/sda1",
                _ => "/dev/xvda",
            };
            let mut chosen = None;
            for b in &list {
                let is_root = b.get("rootVolume").and_then(|r| sink.bool(&r)).unwrap_or(false);
                let dev = sink.opt_scalar(b, "deviceName").unwrap_or_default();
                let ebs = b.get("ebs");
                let size = ebs.as_ref().and_then(|e| e.get("volumeSize")).and_then(|s| sink.quantity(&s));
                if is_root {
                    chosen = size.or(chosen);
                    break;
                }
                if dev == root_dev || nc.ami_family.eq_ignore_ascii_case("custom") {
                    chosen = size;
                }
            }
            nc.root_volume_bytes = chosen.map(|m| m / 1000);
        }
        if let Some(k) = spec.get("kubelet") {
            nc.max_pods = sink.opt_int(&k, "maxPods", "an integer ≥ 0");
            nc.pods_per_core = sink.opt_int(&k, "podsPerCore", "an integer ≥ 0");
            for (field, out) in [("kubeReserved", &mut nc.kube_reserved), ("systemReserved", &mut nc.system_reserved)] {
                if let Some(m) = k.get(field) {
                    for (r, v) in sink.map(&m) {
                        if let Some(q) = sink.quantity(&v) {
                            out.push((self.resources.intern(r), q));
                        }
                    }
                }
            }
            let eviction = k.get("evictionHard");
            if let Some(ev) = eviction.as_ref().and_then(|e| e.get("memory.available")) {
                if let Some(s) = sink.scalar(&ev) {
                    if !s.ends_with('%') {
                        nc.eviction_hard_memory = sink.quantity(&ev);
                    }
                }
            }
        }
        nc.reservation_terms = crate::catalog::reservations::read_terms(&spec, sink);
        self.node_classes.push(nc);
    }

    fn pod(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let mut pod = lower_pod::lower_pod(&meta, spec.as_ref(), &mut self.ctx(), sink);
        let phase = root.get("status").and_then(|s| sink.opt_scalar(&s, "phase")).unwrap_or_default();
        if let Some(status) = root.get("status") {
            if let Some(t) = status.get("startTime") {
                pod.started = lower_pod::timestamp(&t, sink);
            }
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    if sink.opt_scalar(&c, "type").as_deref() == Some("Ready") {
                        pod.not_ready = sink.opt_scalar(&c, "status").as_deref() == Some("False");
                    }
                }
            }
        }
        pod.terminal = phase == "Succeeded" || phase == "Failed";
        if meta.deleting {
            // Terminating: not active, so it blocks nothing and counts in no topology; a
            // StatefulSet's terminating pod is still reschedulable (its replacement cannot start
            // before it is gone; utils/pod/scheduling.go, IsReschedulable).
            pod.terminal = true;
            pod.terminating_statefulset = meta.statefulset_owned;
        }
        if !self.room_for(1, root, "Pod", sink) {
            return;
        }
        let phase = match phase.as_str() {
            "Succeeded" => owners::Phase::Succeeded,
            "Failed" => owners::Phase::Failed,
            _ => owners::Phase::Active,
        };
        self.explicit.push((self.pods.len(), phase));
        self.default_spread.controller(self.pods.len(), root, sink);
        self.pods.push(pod);
    }

    /// Deployments, StatefulSets, ReplicaSets, Jobs and CronJobs expand into pending pods
    /// named `<name>-<i>` (FORMAT §3.4).
    fn workload(&mut self, root: &At, kind: &str, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        if matches!(kind, "Deployment" | "ReplicaSet" | "StatefulSet") {
            self.default_spread.owner(root, kind, &meta.namespace, &meta.name, sink);
        }
        let Some(spec) = root.get("spec") else {
            sink.error(root, "required", format!("{kind} without spec"), "spec.template");
            return;
        };
        let job_spec_holder;
        let job_template = spec.get("jobTemplate");
        let job_spec = if kind == "CronJob" {
            match job_template.as_ref().and_then(|j| j.get("spec")) {
                Some(js) => {
                    job_spec_holder = js;
                    &job_spec_holder
                }
                None => {
                    sink.error(&spec, "required", "CronJob without jobTemplate.spec", "spec.jobTemplate.spec.template");
                    return;
                }
            }
        } else {
            &spec
        };
        let mut job = None;
        let count = if kind == "Job" || kind == "CronJob" {
            let parallelism = sink.opt_int(job_spec, "parallelism", "an integer ≥ 0").unwrap_or(1);
            let completions = sink.opt_int(job_spec, "completions", "an integer ≥ 0");
            let backoff_limit = sink.opt_int(job_spec, "backoffLimit", "an integer ≥ 0").unwrap_or(6);
            for (field, v) in [("parallelism", Some(parallelism)), ("completions", completions), ("backoffLimit", Some(backoff_limit))] {
                if let Some(v) = v.filter(|v| *v < 0) {
                    let msg = format!("{kind} {field} is {v}");
                    match job_spec.get(field) {
                        Some(at) => sink.error(&at, "out-of-range", msg, "an integer ≥ 0"),
                        None => sink.error(job_spec, "out-of-range", msg, "an integer ≥ 0"),
                    }
                    return;
                }
            }
            // A suspended Job (or CronJob) creates no pods until it is resumed: how Kueue queues
            // Jobs (it admits one by setting suspend: false). Listed, as every suspended kind is.
            let cron_suspended = kind == "CronJob" && kinds::flag(&spec, "suspend", sink);
            let job_suspended = kinds::flag(job_spec, "suspend", sink);
            if cron_suspended || job_suspended {
                let field = if kind == "CronJob" && !cron_suspended { "spec.jobTemplate.spec.suspend" } else { "spec.suspend" };
                self.skipped.push(Skipped {
                    source: None,
                    document: sink.document,
                    kind: kind.to_string(),
                    name: meta.name.clone(),
                    reason: format!("{kind} ({field}) {}", kinds::SUSPENDED),
                });
                return;
            }
            let status = root.get("status");
            let status_count =
                |field: &str, sink: &mut Sink| status.as_ref().and_then(|s| sink.opt_int(s, field, "an integer ≥ 0")).unwrap_or(0).max(0);
            job = Some(owners::JobSpec {
                parallelism,
                completions,
                backoff_limit,
                status_succeeded: status_count("succeeded", sink),
                status_failed: status_count("failed", sink),
            });
            completions.map_or(parallelism, |c| parallelism.min(c))
        } else {
            sink.opt_int(job_spec, "replicas", "an integer ≥ 0").unwrap_or(1)
        };
        if count < 0 {
            sink.error(job_spec, "out-of-range", format!("{kind} asks for {count} pods"), "a count ≥ 0");
            return;
        }
        if count > MAX_REQUEST_PODS {
            sink.limit(
                job_spec,
                "too-many-pods",
                format!("{kind} expands to {count} pods; the limit is {MAX_REQUEST_PODS}"),
                "fewer replicas",
            );
            return;
        }
        // The bound is on the whole request, checked before the pods are made: twenty
        // Deployments each under the cap must not add up to 40,000,000 pods.
        if !self.room_for(count, job_spec, kind, sink) {
            return;
        }
        let Some(template) = job_spec.get("template") else {
            sink.error(job_spec, "required", format!("{kind} without a pod template"), "spec.template");
            return;
        };
        let mut tmeta = read_meta(&template, sink);
        tmeta.namespace = meta.namespace.clone();
        tmeta.created = meta.created;
        tmeta.owner = Some((kind.to_string(), meta.name.clone()));
        let tspec = template.get("spec");
        let base = lower_pod::lower_pod(&tmeta, tspec.as_ref(), &mut self.ctx(), sink);
        if matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet") {
            self.buffers.workload(&meta.namespace, kind, &meta.name, count, Some(&base));
        }
        // Replicas share `base`'s spec (an `Arc` clone each); only names differ.
        let workload = format!("{kind}/{}", meta.name);
        self.expansions.push(owners::Expansion {
            kind: kind.to_string(),
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            owner: meta.owner.clone(),
            first: self.pods.len(),
            count: count as usize,
            job,
            document: sink.document,
            source: None,
        });
        self.pods.reserve(count as usize);
        for i in 0..count {
            let mut p = base.clone();
            p.name = format!("{}-{i}", meta.name);
            p.uid = format!("{}/{}", meta.namespace, p.name);
            p.workload = Some(workload.clone());
            self.pods.push(p);
        }
    }

    fn daemonset(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let Some(template) = spec.as_ref().and_then(|s| s.get("template")) else {
            sink.error(root, "required", "DaemonSet without spec.template", "spec.template");
            return;
        };
        let mut tmeta: Meta = read_meta(&template, sink);
        tmeta.namespace = meta.namespace.clone();
        tmeta.name = meta.name.clone();
        tmeta.owner = Some(("DaemonSet".into(), meta.name.clone()));
        let tspec = template.get("spec");
        let pod = lower_pod::lower_pod(&tmeta, tspec.as_ref(), &mut self.ctx(), sink);
        self.daemonsets.push(DaemonSet { name: meta.name, namespace: meta.namespace, pod });
    }

    fn pdb(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let selector = spec
            .as_ref()
            .and_then(|s| s.get("selector"))
            .map(|s| lower_pod::label_selector(&s, &mut self.interner, sink))
            .unwrap_or_else(Selector::nothing);
        let iop = |name: &str, sink: &mut Sink| {
            let at = spec.as_ref()?.get(name)?;
            let s = sink.scalar(&at)?;
            match s.strip_suffix('%') {
                Some(p) => p.parse().ok().map(IntOrPercent::Percent),
                None => s.parse().ok().map(IntOrPercent::Int),
            }
            .or_else(|| {
                sink.error(&at, "invalid-value", format!("{s:?} is neither an integer nor a percentage"), "e.g. 1 or 50%");
                None
            })
        };
        let min_available = iop("minAvailable", sink);
        let max_unavailable = iop("maxUnavailable", sink);
        let disruptions_allowed = root.get("status").and_then(|s| sink.opt_int(&s, "disruptionsAllowed", "an integer"));
        // The API server accepts only these two policies (policy/v1 validation).
        let mut always_allow_unhealthy = false;
        if let Some(at) = spec.as_ref().and_then(|s| s.get("unhealthyPodEvictionPolicy")) {
            match sink.scalar(&at).as_deref() {
                Some("AlwaysAllow") => always_allow_unhealthy = true,
                Some("IfHealthyBudget") => {}
                Some(other) => sink.error(
                    &at,
                    "unsupported-value",
                    format!("unhealthyPodEvictionPolicy {other:?} is not supported"),
                    "IfHealthyBudget or AlwaysAllow",
                ),
                None => {}
            }
        }
        self.pdbs.push(Pdb {
            name: meta.name,
            namespace: meta.namespace,
            selector,
            min_available,
            max_unavailable,
            disruptions_allowed,
            always_allow_unhealthy,
        });
    }

    fn node(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut n = self.existing(&meta, sink);
        if let Some(spec) = root.get("spec") {
            if let Some(ts) = spec.get("taints") {
                n.taints = read_taints(&ts, sink);
            }
            if let Some(id) = sink.opt_scalar(&spec, "providerID").filter(|id| !id.is_empty()) {
                self.node_provider_ids.push((id, meta.name.clone()));
            }
        }
        if let Some(status) = root.get("status") {
            if let Some(a) = status.get("allocatable") {
                n.allocatable = self.resource_map(&a, sink);
            }
            n.capacity = match status.get("capacity") {
                Some(c) => self.resource_map(&c, sink),
                None => n.allocatable.clone(),
            };
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    let Some(type_) = sink.opt_scalar(&c, "type") else {
                        // `type` is the list's merge key: the API server's strategic merge needs it.
                        sink.error(&c, "required", "Node condition without a type", "type: Ready (or AcceleratedHardwareReady, ...)");
                        continue;
                    };
                    let status = sink.opt_scalar(&c, "status").unwrap_or_default();
                    if type_ == "Ready" {
                        n.ready = status == "True";
                    }
                    n.conditions.push(crate::model::NodeCondition {
                        type_,
                        status,
                        reason: sink.opt_scalar(&c, "reason").unwrap_or_default(),
                        last_transition: c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink)),
                    });
                }
            }
        } else {
            sink.error(root, "required", "Node without status.allocatable", "status.allocatable: {cpu: ..., memory: ..., pods: ...}");
        }
        // Read from the Node, as Karpenter's StateNode.Annotations() does for a registered node.
        n.do_not_repair = has_true_annotation(&meta.annotations, "karpenter.sh/do-not-repair");
        let init_label =
            self.interner.get("karpenter.sh/initialized").and_then(|k| n.labels.get(k)).map(|v| self.interner.str(v) == "true");
        n.initialized = init_label.unwrap_or(true);
        // Karpenter reads registration from the `karpenter.sh/registered` label (statenode.go,
        // Registered); the conformance format may leave Karpenter's labels out, and an
        // initialized node has registered.
        let registered_label =
            self.interner.get("karpenter.sh/registered").and_then(|k| n.labels.get(k)).map(|v| self.interner.str(v) == "true");
        n.registered = registered_label.unwrap_or(n.initialized);
        n.initialized_at = n.created;
        self.nodes.push(n);
    }

    fn existing(&mut self, meta: &Meta, sink: &Sink) -> ExistingNode {
        let interner = &mut self.interner;
        let mut pairs: Vec<(u32, u32)> =
            meta.labels.iter().map(|(k, v)| (interner.intern(labels::normalize_key(k)), interner.intern(v))).collect();
        let hostname = interner.intern(labels::HOSTNAME);
        if !pairs.iter().any(|(k, _)| *k == hostname) {
            pairs.push((hostname, interner.intern(&meta.name)));
        }
        let labels_set = LabelSet::from_pairs(pairs);
        let label = |k: &str| meta.labels.iter().find(|(lk, _)| labels::normalize_key(lk) == k).map(|(_, v)| v.clone());
        ExistingNode {
            name: meta.name.clone(),
            labels: labels_set,
            taints: Vec::new(),
            allocatable: Resources::new(),
            capacity: Resources::new(),
            nodepool: label(labels::NODEPOOL),
            instance_type: label(labels::INSTANCE_TYPE),
            zone: label(labels::ZONE),
            capacity_type: label(labels::CAPACITY_TYPE),
            created: meta.created,
            initialized: true,
            initialized_condition: None,
            ready: true,
            managed: label(labels::NODEPOOL).is_some(),
            in_flight: false,
            do_not_disrupt: has_true_annotation(&meta.annotations, labels::DO_NOT_DISRUPT),
            marked_for_deletion: meta.deleting,
            nodeclaim_name: None,
            expire_after: None,
            last_pod_event: None,
            initialized_at: None,
            startup_taints: Vec::new(),
            nodepool_hash: None,
            drifted: None,
            has_termination_grace_period: false,
            conditions: Vec::new(),
            termination_grace_period: None,
            do_not_repair: false,
            registered: true,
            rebooting: false,
            reboot_finished: None,
            document: sink.document,
            source: None,
        }
    }

    fn node_claim(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut n = self.existing(&meta, sink);
        n.nodeclaim_name = Some(meta.name.clone());
        n.in_flight = true;
        n.initialized = false;
        // Until merge_claims joins it with its Node: whether its `Registered` condition is True.
        n.registered = false;
        let annotation = |k: &str| meta.annotations.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
        let mut claim_hash = hash_version::ClaimHash {
            hash: annotation("karpenter.sh/nodepool-hash"),
            version: annotation("karpenter.sh/nodepool-hash-version"),
            ..Default::default()
        };
        n.nodepool_hash = claim_hash.hash.clone().zip(claim_hash.version.clone());
        if let Some(spec) = root.get("spec") {
            if let Some(ts) = spec.get("taints") {
                n.taints = read_taints(&ts, sink);
            }
            if let Some(ts) = spec.get("startupTaints") {
                n.startup_taints = read_taints(&ts, sink);
            }
            if let Some(e) = spec.get("expireAfter") {
                n.expire_after = duration(&e, true, sink);
            }
            n.has_termination_grace_period = spec.get("terminationGracePeriod").is_some_and(|t| !t.v.is_null());
            n.termination_grace_period = spec
                .get("terminationGracePeriod")
                .and_then(|t| t.v.as_str().map(str::to_string))
                .and_then(|t| parse_duration(&t, false).ok().flatten());
            // Until its Node registers, a NodeClaim is known by its requirements: single-valued
            // `In` requirements (zone, capacity type, instance type, ...) act as its labels.
            if let Some(rs) = spec.get("requirements") {
                for r in sink.list(&rs) {
                    let key = sink.opt_scalar(&r, "key").map(|k| labels::normalize_key(&k).to_string()).unwrap_or_default();
                    let op = sink.opt_scalar(&r, "operator").unwrap_or_default();
                    let values = r.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
                    if op == "In" && values.len() == 1 && !key.is_empty() {
                        let k = self.interner.intern(&key);
                        if n.labels.get(k).is_none() {
                            let v = self.interner.intern(&values[0]);
                            n.labels.set(k, v);
                            match key.as_str() {
                                labels::INSTANCE_TYPE => n.instance_type = Some(values[0].clone()),
                                labels::ZONE => n.zone = Some(values[0].clone()),
                                labels::CAPACITY_TYPE => n.capacity_type = Some(values[0].clone()),
                                labels::NODEPOOL => {
                                    n.nodepool = Some(values[0].clone());
                                    n.managed = true;
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
        n.managed = true;
        let mut node_name = None;
        if let Some(status) = root.get("status") {
            node_name = sink.opt_scalar(&status, "nodeName");
            claim_hash.provider_id = sink.opt_scalar(&status, "providerID").filter(|id| !id.is_empty());
            if let Some(a) = status.get("allocatable") {
                n.allocatable = self.resource_map(&a, sink);
            }
            n.capacity = match status.get("capacity") {
                Some(c) => self.resource_map(&c, sink),
                None => n.allocatable.clone(),
            };
            if let Some(t) = status.get("lastPodEventTime") {
                n.last_pod_event = lower_pod::timestamp(&t, sink);
            }
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    match sink.opt_scalar(&c, "type").as_deref() {
                        Some("Initialized") => {
                            n.initialized = sink.opt_scalar(&c, "status").as_deref() == Some("True");
                            n.initialized_condition = Some(n.initialized);
                            n.initialized_at = c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink));
                        }
                        // Karpenter's state counts a NodeClaim whose instance is terminating
                        // as deleted (statenode.go, Deleted).
                        Some("InstanceTerminating") if sink.opt_scalar(&c, "status").as_deref() == Some("True") => {
                            n.marked_for_deletion = true;
                        }
                        Some("Registered") => n.registered = sink.opt_scalar(&c, "status").as_deref() == Some("True"),
                        // A repair reboot: True while it is in flight; False once it ended,
                        // its transition time the end of the last reboot (statenode.go).
                        Some("Rebooting") => match sink.opt_scalar(&c, "status").as_deref() {
                            Some("True") => n.rebooting = true,
                            Some("False") => n.reboot_finished = c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink)),
                            _ => {}
                        },
                        Some("Drifted") if sink.opt_scalar(&c, "status").as_deref() != Some("True") => {
                            claim_hash.has_drifted_condition = true;
                        }
                        Some("Drifted") => {
                            claim_hash.has_drifted_condition = true;
                            let reason = sink.opt_scalar(&c, "reason").unwrap_or_default();
                            n.drifted = Some((reason, c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink))));
                        }
                        _ => {}
                    }
                }
            }
        }
        // The Node name links the claim to its Node; merge_claims joins them.
        n.name = node_name.unwrap_or_else(|| meta.name.clone());
        claim_hash.node = n.name.clone();
        self.claim_hashes.push(claim_hash);
        self.claims.push(n);
    }

    /// Join NodeClaims with their Nodes (R1.6): the Node supplies labels, taints and
    /// allocatable; the claim supplies lifecycle facts. A claim without a Node is in flight.
    fn merge_claims(&mut self) {
        // By provider ID first, as Karpenter's cluster state (state/cluster.go, UpdateNode and
        // UpdateNodeClaim key a node by it): a NodeClaim whose `status.providerID` is a Node's
        // `spec.providerID` is that Node's claim, with or without `status.nodeName`.
        for (claim, hash) in self.claims.iter_mut().zip(self.claim_hashes.iter_mut()) {
            let by_id = hash.provider_id.as_ref().and_then(|id| self.node_provider_ids.iter().find(|(n, _)| n == id));
            if let Some((_, node)) = by_id {
                claim.name = node.clone();
                hash.node = node.clone();
            }
        }
        for claim in std::mem::take(&mut self.claims) {
            match self.nodes.iter_mut().find(|n| n.name == claim.name) {
                Some(node) => {
                    node.nodeclaim_name = claim.nodeclaim_name;
                    // With its NodeClaim, the Node is deleting when the NodeClaim is (a
                    // deletionTimestamp or InstanceTerminating): Karpenter's StateNode.Deleted
                    // reads the Node's own deletionTimestamp only for a Node without a
                    // NodeClaim (statenode.go). A Node being deleted under a live NodeClaim is
                    // active to the provisioner and the disruption controller.
                    node.marked_for_deletion = claim.marked_for_deletion;
                    node.created = claim.created.or(node.created);
                    node.expire_after = claim.expire_after;
                    node.last_pod_event = claim.last_pod_event;
                    if claim.initialized_at.is_some() {
                        node.initialized_at = claim.initialized_at;
                    }
                    node.do_not_disrupt |= claim.do_not_disrupt;
                    node.startup_taints = claim.startup_taints;
                    node.nodepool_hash = claim.nodepool_hash;
                    node.drifted = claim.drifted;
                    node.has_termination_grace_period = claim.has_termination_grace_period;
                    node.termination_grace_period = claim.termination_grace_period;
                    node.managed = true;
                    // With its NodeClaim the Node is Karpenter's, and Karpenter calls it initialized
                    // only with the label `karpenter.sh/initialized=true` (statenode.go,
                    // Initialized). Karpenter sets that label and the claim's Initialized condition
                    // together, and the conformance format leaves the label out (FORMAT §3.7): a
                    // Node without the label follows its claim's Initialized condition, and is
                    // initialized when the claim has none (as a lone Node's assumed claim is).
                    let init = self.interner.get("karpenter.sh/initialized").and_then(|k| node.labels.get(k));
                    node.initialized = match (init, claim.initialized_condition) {
                        (Some(v), _) => self.interner.str(v) == "true",
                        (None, Some(condition)) => condition,
                        (None, None) => true,
                    };
                    // Registration likewise: the label `karpenter.sh/registered`, else the
                    // claim's Registered condition, else initialization (which follows it).
                    let registered = self.interner.get("karpenter.sh/registered").and_then(|k| node.labels.get(k));
                    node.registered = match registered {
                        Some(v) => self.interner.str(v) == "true",
                        None => claim.registered || node.initialized,
                    };
                    node.rebooting = claim.rebooting;
                    node.reboot_finished = claim.reboot_finished;
                    // Karpenter fills the Node's zero or missing values from the NodeClaim only
                    // until the node is initialized (statenode.go, Allocatable/Capacity); an
                    // initialized Node with an empty status.allocatable has no room, not even a
                    // pod slot.
                    if !node.initialized {
                        for (id, v) in claim.allocatable.iter_nonzero() {
                            if node.allocatable.get(id) == 0 {
                                node.allocatable.set(id, v);
                            }
                        }
                        for (id, v) in claim.capacity.iter_nonzero() {
                            if node.capacity.get(id) == 0 {
                                node.capacity.set(id, v);
                            }
                        }
                    }
                }
                // Without a Node, Karpenter's state calls it neither registered nor
                // initialized, whatever its conditions say.
                None => self.nodes.push(ExistingNode { registered: false, ..claim }),
            }
        }
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

fn read_taints(ts: &At, sink: &mut Sink) -> Vec<Taint> {
    let mut out = Vec::new();
    for t in sink.list(ts) {
        let key = sink.opt_scalar(&t, "key").unwrap_or_default();
        let value = sink.opt_scalar(&t, "value").unwrap_or_default();
        let effect_text = sink.opt_scalar(&t, "effect").unwrap_or_default();
        match Effect::parse(&effect_text) {
            Some(effect) => out.push(Taint { key, value, effect }),
            None => {
                let at = t.get("effect").unwrap_or(t);
                sink.error(
                    &at,
                    "invalid-effect",
                    format!("unknown taint effect {effect_text:?}"),
                    "NoSchedule, PreferNoSchedule or NoExecute",
                );
            }
        }
    }
    out
}

fn duration(at: &At, allow_never: bool, sink: &mut Sink) -> Option<Option<i64>> {
    let s = sink.scalar(at)?;
    match parse_duration(&s, allow_never) {
        Ok(d) => Some(d),
        Err(msg) => {
            sink.error(at, "invalid-duration", msg, if allow_never { "a duration such as 30s, 5m, 720h, or Never" } else { DURATION_HELP });
            None
        }
    }
}

fn disruption(d: &At, sink: &mut Sink) -> Disruption {
    let policy = match sink.opt_scalar(d, "consolidationPolicy").as_deref() {
        Some("WhenEmpty") => ConsolidationPolicy::WhenEmpty,
        None | Some("WhenEmptyOrUnderutilized") => ConsolidationPolicy::WhenEmptyOrUnderutilized,
        Some("Balanced") => ConsolidationPolicy::Balanced,
        Some(other) => {
            let at = d.get("consolidationPolicy").unwrap_or(*d);
            sink.error(
                &at,
                "unsupported-value",
                format!("unknown consolidationPolicy {other:?}"),
                "WhenEmpty, WhenEmptyOrUnderutilized or Balanced",
            );
            ConsolidationPolicy::WhenEmptyOrUnderutilized
        }
    };
    let consolidate_after = d.get("consolidateAfter").and_then(|a| duration(&a, true, sink)).unwrap_or(Some(0));
    let budgets = match d.get("budgets") {
        None => vec![Budget::new(BudgetNodes::Percent(10), vec![], None, None)],
        Some(bs) => {
            let mut out = Vec::new();
            for b in sink.list(&bs) {
                let nodes_text = sink.opt_scalar(&b, "nodes").unwrap_or_else(|| "10%".into());
                let nodes = match nodes_text.strip_suffix('%') {
                    Some(p) => p.parse::<u32>().ok().filter(|p| *p <= 100).map(BudgetNodes::Percent),
                    None => nodes_text.parse::<u32>().ok().map(BudgetNodes::Count),
                };
                let Some(nodes) = nodes else {
                    let at = b.get("nodes").unwrap_or(b);
                    sink.error(
                        &at,
                        "invalid-budget",
                        format!("budget nodes {nodes_text:?} is not a count or a percentage ≤ 100%"),
                        "e.g. 1, 10 or 20%",
                    );
                    continue;
                };
                let reasons = b.get("reasons").map(|r| sink.string_list(&r)).unwrap_or_default();
                let schedule = sink.opt_scalar(&b, "schedule");
                let dur = b.get("duration").and_then(|a| duration(&a, false, sink)).flatten();
                out.push(Budget::new(nodes, reasons, schedule, dur));
            }
            out
        }
    };
    Disruption { policy, consolidate_after, budgets }
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

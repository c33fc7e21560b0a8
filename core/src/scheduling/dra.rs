//! Karpenter v1.15.0's DRA allocator inside one provisioning pass (`--ignore-dra-requests=false`;
//! pkg/scheduling/dynamicresources/allocator.go, pkg/controllers/provisioning/scheduling/dra.go).
//!
//! For a pod with resource claims, each placement target is asked whether its devices can
//! satisfy the pod's claims:
//! - an existing node offers the devices of the input ResourceSlices published for it
//!   (`nodeName`) or for every node (`allNodes`); an in-flight NodeClaim (not a node yet) offers
//!   the provider's templates of its instance type, as Karpenter's uninitialized nodes do;
//! - a planned NodeClaim is a superposition of instance types: each candidate type is searched
//!   with the `allNodes` devices plus the provider's templates of that type (crate::dra::aws),
//!   and only the types whose search succeeds stay candidates (nodeclaim.go, "Apply the
//!   DRA-specific instance type filter").
//!
//! Devices held by claims the input already allocated are taken; a device serves one request.
//! A claim allocated in the input pins no pod (its `matchFields` node selector gives Karpenter
//! no topology), so another pod using it may go to any node, needing no device; a claim
//! allocated in this pass with template devices pins its pods to the NodeClaim it was allocated
//! for ("claim is bound to a different in-flight NodeClaim"). A pod's claim from a
//! ResourceClaimTemplate is the one the resourceclaim controller generates for that pod alone.

use crate::dra::{self, aws, Claim, ClaimSource, Device, DeviceKey, SearchFail};
use crate::fxhash::FxHashMap;
use crate::labels::ValueId;
use crate::model::{Model, Pod};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// One pod's open claims, as a search sees them.
struct Search<'m> {
    /// The claims by identity (their address in the model, fixed for the pass).
    ids: Vec<usize>,
    /// Every request of the claims in order, with its DeviceClass, and its mode.
    requests: Vec<(&'m dra::Request, &'m dra::DeviceClass)>,
    modes: Vec<dra::Mode>,
    pod: &'m Pod,
    /// The pod's `spec.resourceClaims[].name` of each claim.
    entries: Vec<&'m str>,
}

/// Who holds template devices: a planned NodeClaim (by placeholder hostname) or an in-flight
/// NodeClaim of the input (by node index), per instance type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Holder {
    Claim(ValueId),
    Node(usize),
}

/// Where a claim allocated in this pass may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    At(Holder),
    Anywhere,
}

/// Why a target cannot satisfy a pod's claims (messages as Karpenter's errors where it has one).
#[derive(Debug, Clone, PartialEq)]
pub enum DraFail {
    ClaimNotFound(String),
    TemplateNotFound {
        template: String,
        claim: String,
    },
    ClassNotFound {
        claim: String,
        request: String,
        class: String,
    },
    BoundElsewhere(String),
    /// A claim the disruption frees (reserved only by pods it moves), which this pass already
    /// allocated again for another pod sharing it: Karpenter v1.15.0 cannot move this pod.
    ReleasedShared(String),
    /// No candidate instance type (or the node) has the devices; `gates_off`: the provider's
    /// DRA gates are off, so new nodes offer no devices at all.
    NoDevices {
        new_node: bool,
        gates_off: bool,
    },
    TooManySteps,
    /// nodecast's budget of device-search steps for one pass ([`dra::MAX_PASS_STEPS`]) ran out
    /// while searching for this pod's claims (its `spec.resourceClaims[].name`s).
    Budget {
        pod: String,
        document: usize,
        claims: Vec<String>,
    },
}

impl DraFail {
    /// The reason a user reads.
    pub fn message(&self) -> String {
        match self {
            DraFail::ClaimNotFound(c) => format!("resourceclaim {c:?} not found"),
            DraFail::TemplateNotFound { template, claim } => format!(
                "resourceclaimtemplate {template:?} not found: the resourceclaim controller cannot generate the pod's claim {claim:?}"
            ),
            DraFail::ClassNotFound { claim, request, class } => {
                format!("validating claim {claim:?}: request {request:?}: DeviceClass {class:?} not found")
            }
            DraFail::BoundElsewhere(c) => format!("ResourceClaim {c}: claim is bound to a different in-flight NodeClaim"),
            DraFail::ReleasedShared(c) => format!(
                "ResourceClaim {c}: the claim is freed by this disruption and already allocated again for another pod sharing it; Karpenter v1.15.0 allocates such a claim once per pod and cannot move this one (no second device, or its allocator panics: \"attempted to commit claim which was already allocated\")"
            ),
            DraFail::NoDevices { new_node: true, gates_off: true } => "allocating dynamic resources, no instance type can satisfy the allocation \
                 (the AWS provider offers no devices to a new node while its DRANVIDIAGPU and DRAEFA gates are off: --aws-feature-gates DRANVIDIAGPU=true)"
                .into(),
            DraFail::NoDevices { new_node: true, .. } => "allocating dynamic resources, no instance type can satisfy the allocation".into(),
            DraFail::NoDevices { new_node: false, .. } => "allocating dynamic resources, the node's devices cannot satisfy the allocation".into(),
            DraFail::TooManySteps => format!("allocating dynamic resources, the device search gave up after {} steps", dra::MAX_SEARCH_STEPS),
            DraFail::Budget { pod, document, claims } => format!(
                "allocating dynamic resources for pod {pod} (document {document}), claims {claims:?}: nodecast's bound of {} device-search steps per scheduling pass ran out (fewer DRA pods, claims with fewer requests, or fewer candidate devices)",
                dra::MAX_PASS_STEPS
            ),
        }
    }
}

/// The devices one search picked: key, and whether it is node-local (pins the claim).
type Picks = Vec<(DeviceKey, bool)>;

/// A pod's claim, resolved.
struct Resolved<'m> {
    /// `namespace/name` of a named claim (shared); None for a claim generated from a template.
    shared: Option<String>,
    /// The pod's `spec.resourceClaims[].name` of it.
    entry: &'m str,
    claim: &'m Claim,
}

/// Which candidate devices a search looks at, besides the claims' requests: an existing node's
/// (its slices and the `allNodes` ones), or the `allNodes` devices followed by the template
/// devices of a device profile (types whose templates hold the same devices share one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Scope {
    Node(usize),
    Profile(u32),
}

/// A search's answer: the candidate indices chosen, none fit, or the per-search bound ran out.
#[derive(Debug, Clone)]
enum Verdict {
    Fits(Vec<usize>),
    NoDevices,
    TooManySteps,
}

/// (scope, the searched claims by identity, free candidates as bits): everything the search's
/// answer is a function of, so a memoised verdict is the verdict (the claims' requests and
/// classes and the scope's devices are fixed for the pass).
type SearchKey = (Scope, Vec<usize>, Vec<u64>);

/// Memoised matrices `matches[request][candidate]` per (scope, claims).
type MatchMemo = FxHashMap<(Scope, Vec<usize>), Rc<Vec<Vec<bool>>>>;

/// A candidate device of an existing node: its key and where it is in the input (slice, device).
struct NodeCand {
    key: DeviceKey,
    slice: usize,
    device: usize,
}

/// What a successful check found: the surviving candidate types (empty for a node) and, per
/// type (None for a node), the devices taken and the shared claims allocated.
pub struct Outcome {
    pub its: Vec<u32>,
    picks: Vec<(Option<u32>, Picks)>,
    allocated: Vec<String>,
}

/// The allocator's state over one pass.
pub struct Pass {
    /// In-cluster devices held: by the input's allocated claims, then by this pass.
    used: HashSet<DeviceKey>,
    /// Allocated claims of the input reserved only by pods of the batch that are migrating off
    /// their nodes (by identity): allocated again in this pass, wherever their pods go.
    released: HashSet<usize>,
    /// Template devices held, per holder and instance type.
    held: HashMap<(Holder, u32), HashSet<DeviceKey>>,
    /// Shared claims allocated in this pass.
    bound: HashMap<String, Bound>,
    /// The provider's templates per catalog instance type (only types that have some).
    templates: HashMap<u32, Vec<aws::Template>>,
    /// Instance type → device profile (1-based; types without templates have profile 0).
    profile_of: HashMap<u32, u32>,
    /// Device profile → its template devices in order (driver, device); [0] is empty.
    profiles: Vec<Vec<(&'static str, Device)>>,
    /// The `allNodes` devices, in input order: key, slice, device.
    shared: Vec<(DeviceKey, usize, usize)>,
    /// Candidate devices per existing node (built on first use).
    node_cands: RefCell<FxHashMap<usize, Rc<Vec<NodeCand>>>>,
    /// Verdicts of searches already run (see [`SearchKey`]): DRA pods do not share the
    /// scheduler's shape caches, so without it every pod × target × instance type searched anew.
    memo: RefCell<FxHashMap<SearchKey, Verdict>>,
    matches: RefCell<MatchMemo>,
    /// Search steps left of [`dra::MAX_PASS_STEPS`].
    steps_left: Cell<usize>,
}

impl Pass {
    /// The allocator's state for a pass whose batch holds the pods `batch`: those of them that
    /// run on a node (a disruption candidate's, a deleting node's) are migrating, so a claim
    /// reserved only by such pods is allocated again and its devices are free
    /// (provisioning/dra.go `gatherAllocatedDevices`, dynamicresources/allocator.go
    /// `ClassifyClaims`).
    pub fn new(m: &Model, batch: &[usize]) -> Pass {
        let deleting: HashSet<&str> =
            batch.iter().map(|&p| &m.pods[p]).filter(|p| p.node_name.is_some() && !p.uid.is_empty()).map(|p| p.uid.as_str()).collect();
        let released: HashSet<usize> = m
            .dra
            .claims
            .iter()
            .filter(|c| c.allocation.is_some() && !c.reserved_for.is_empty())
            .filter(|c| c.reserved_for.iter().all(|r| r.pod && deleting.contains(r.uid.as_str())))
            .map(|c| c as *const Claim as usize)
            .collect();
        // A device is free when the pods of every claim holding it are all migrating (and
        // there is at least one): the deviceallocation controller's per-device pod set.
        let mut consumers: HashMap<&DeviceKey, Vec<&str>> = HashMap::new();
        for c in &m.dra.claims {
            for d in c.allocation.iter().flat_map(|a| &a.devices) {
                consumers.entry(d).or_default().extend(c.reserved_for.iter().filter(|r| r.pod).map(|r| r.uid.as_str()));
            }
        }
        let used = consumers
            .into_iter()
            .filter(|(_, pods)| pods.is_empty() || !pods.iter().all(|u| deleting.contains(u)))
            .map(|(d, _)| d.clone())
            .collect();
        let gates = &m.settings.aws_feature_gates;
        let templates: HashMap<u32, Vec<aws::Template>> = if gates.any_dra() {
            m.catalog
                .types
                .iter()
                .enumerate()
                .filter_map(|(i, it)| {
                    let t = aws::templates(&it.name, gates);
                    (!t.is_empty()).then_some((i as u32, t))
                })
                .collect()
        } else {
            HashMap::new()
        };
        // Profiles in catalog order, so their ids do not depend on the map's order.
        let mut profiles: Vec<Vec<(&'static str, Device)>> = vec![Vec::new()];
        let mut profile_of = HashMap::new();
        let mut ids: Vec<u32> = templates.keys().copied().collect();
        ids.sort_unstable();
        for it in ids {
            let devices: Vec<(&'static str, Device)> =
                templates[&it].iter().flat_map(|t| t.devices.iter().map(move |d| (t.driver, d.clone()))).collect();
            let p = match profiles.iter().position(|p| *p == devices) {
                Some(p) => p,
                None => {
                    profiles.push(devices);
                    profiles.len() - 1
                }
            };
            profile_of.insert(it, p as u32);
        }
        let shared = m
            .dra
            .slices
            .iter()
            .enumerate()
            .filter(|(_, s)| s.node.is_none())
            .flat_map(|(si, s)| {
                s.devices
                    .iter()
                    .enumerate()
                    .map(move |(di, d)| (DeviceKey { driver: s.driver.clone(), pool: s.pool.clone(), device: d.name.clone() }, si, di))
            })
            .collect();
        Pass {
            used,
            released,
            held: HashMap::new(),
            bound: HashMap::new(),
            templates,
            profile_of,
            profiles,
            shared,
            node_cands: Default::default(),
            memo: Default::default(),
            matches: Default::default(),
            steps_left: Cell::new(dra::MAX_PASS_STEPS),
        }
    }

    fn resolve<'m>(&self, m: &'m Model, pod: &'m Pod) -> Result<Vec<Resolved<'m>>, DraFail> {
        pod.dra_claims
            .iter()
            .map(|pc| match &pc.source {
                ClaimSource::Claim(name) => m
                    .dra
                    .claim(&pod.namespace, name)
                    .map(|claim| Resolved { shared: Some(format!("{}/{name}", pod.namespace)), entry: &pc.name, claim })
                    .ok_or_else(|| DraFail::ClaimNotFound(format!("{}/{name}", pod.namespace))),
                ClaimSource::Template(t) => m
                    .dra
                    .template(&pod.namespace, t)
                    .map(|claim| Resolved { shared: None, entry: &pc.name, claim })
                    .ok_or_else(|| DraFail::TemplateNotFound { template: format!("{}/{t}", pod.namespace), claim: pc.name.clone() }),
            })
            .collect()
    }

    /// Whether `holder` (with candidate types `its`, or a node) can satisfy the pod's claims.
    pub fn check(&self, m: &Model, pod: &Pod, holder: Holder, its: &[u32]) -> Result<Outcome, DraFail> {
        let claims = self.resolve(m, pod)?;
        let mut open: Vec<&Resolved> = Vec::new();
        for r in &claims {
            let released = self.released.contains(&(r.claim as *const Claim as usize));
            // A claim the input allocated is satisfied wherever the pod goes: Karpenter derives an
            // allocation's topology from the `matchExpressions` of its nodeSelector only
            // (dynamicresources/types.go `nodeSelectorsToRequirements`, read by allocator.go
            // `ClassifyClaims`), and the one nodecast accepts, what the scheduler writes
            // (`matchFields: metadata.name`), has none, so it pins no pod to its node.
            if r.claim.allocation.is_some() && !released {
                continue;
            }
            // A released claim is allocated again for every pod that shares it: Karpenter's
            // ClassifyClaims tests "reserved entirely by deleting pods" before it looks for this
            // pass's allocation, so a second sharer gets a fresh allocation, and its commit
            // either never happens (no device) or panics on the claim already committed
            // (allocator.go allocation.Commit). Either way the second pod does not move.
            if released && r.shared.as_ref().is_some_and(|s| self.bound.contains_key(s)) {
                return Err(DraFail::ReleasedShared(r.shared.clone().unwrap_or_default()));
            }
            match r.shared.as_ref().and_then(|s| self.bound.get(s)) {
                Some(Bound::At(h)) if *h != holder => return Err(DraFail::BoundElsewhere(r.shared.clone().unwrap_or_default())),
                Some(_) => continue,
                None => open.push(r),
            }
        }
        if open.is_empty() {
            return Ok(Outcome { its: its.to_vec(), picks: Vec::new(), allocated: Vec::new() });
        }
        // Requests in order, with their classes.
        let mut requests = Vec::new();
        for r in &open {
            for q in &r.claim.requests {
                let class = m.dra.class(&q.class).ok_or_else(|| DraFail::ClassNotFound {
                    claim: r.shared.clone().unwrap_or_else(|| r.claim.name.clone()),
                    request: q.name.clone(),
                    class: q.class.clone(),
                })?;
                requests.push((q, class));
            }
        }
        let search = Search {
            ids: open.iter().map(|r| r.claim as *const Claim as usize).collect(),
            modes: requests.iter().map(|(q, _)| q.mode).collect(),
            requests,
            pod,
            entries: open.iter().map(|r| r.entry).collect(),
        };
        let allocated: Vec<String> = open.iter().filter_map(|r| r.shared.clone()).collect();
        match holder {
            Holder::Node(n) if !m.nodes[n].in_flight => {
                let cands = self.node_cands(m, n);
                let free: Vec<bool> = cands.iter().map(|c| !self.used.contains(&c.key)).collect();
                let devices =
                    || cands.iter().map(|c| (m.dra.slices[c.slice].driver.as_str(), &m.dra.slices[c.slice].devices[c.device])).collect();
                let chosen = self
                    .verdict(Scope::Node(n), &search, &free, devices)?
                    .ok_or(DraFail::NoDevices { new_node: false, gates_off: false })?;
                // Devices an existing node published never pin a shared claim to the node: Karpenter
                // pins an allocation only when it used template devices (allocator.go
                // `UsedTemplateDevices`, ClassifyClaims); one from in-cluster slices constrains
                // later pods sharing the claim only by the slices' node-selector topology, and a
                // `nodeName` slice has none (pool.go `sliceTopologyRequirements`), so such a pod may
                // go to another node or a new NodeClaim (oracle dra-315, 408, 457, 467, 497).
                let picks = chosen.into_iter().map(|i| (cands[i].key.clone(), false)).collect();
                Ok(Outcome { its: Vec::new(), picks: vec![(None, picks)], allocated })
            }
            _ => {
                // A planned NodeClaim, or an in-flight one (its one instance type).
                let its: Vec<u32> = match holder {
                    Holder::Node(n) => {
                        let t = m.nodes[n].instance_type.as_deref();
                        m.catalog.types.iter().position(|it| Some(it.name.as_str()) == t).map(|i| vec![i as u32]).unwrap_or_default()
                    }
                    Holder::Claim(_) => its.to_vec(),
                };
                let shared_free: Vec<bool> = self.shared.iter().map(|(k, _, _)| !self.used.contains(k)).collect();
                // Types without devices held on this holder differ only by profile.
                let mut by_profile: FxHashMap<u32, Option<Vec<usize>>> = Default::default();
                let mut kept = Vec::new();
                let mut picks = Vec::new();
                for &it in &its {
                    let profile = self.profile_of.get(&it).copied().unwrap_or(0);
                    let chosen = match self.held.get(&(holder, it)) {
                        None => match by_profile.get(&profile) {
                            Some(c) => c.clone(),
                            None => {
                                let mut free = shared_free.clone();
                                free.resize(self.shared.len() + self.profiles[profile as usize].len(), true);
                                let c = self.profile_verdict(m, profile, &search, &free)?;
                                by_profile.insert(profile, c.clone());
                                c
                            }
                        },
                        Some(held) => {
                            let mut free = shared_free.clone();
                            free.extend(self.template_keys(it).map(|k| !held.contains(&k)));
                            self.profile_verdict(m, profile, &search, &free)?
                        }
                    };
                    if let Some(chosen) = chosen {
                        kept.push(it);
                        picks.push((Some(it), self.picks(it, &chosen)));
                    }
                }
                if kept.is_empty() {
                    return Err(DraFail::NoDevices { new_node: true, gates_off: !m.settings.aws_feature_gates.any_dra() });
                }
                Ok(Outcome { its: kept, picks, allocated })
            }
        }
    }

    /// The template device keys of a new node of type `it`, in candidate order.
    fn template_keys(&self, it: u32) -> impl Iterator<Item = DeviceKey> + '_ {
        self.templates.get(&it).into_iter().flatten().flat_map(|t| {
            t.devices.iter().map(move |d| DeviceKey { driver: t.driver.to_string(), pool: t.pool.clone(), device: d.name.clone() })
        })
    }

    /// The devices candidate indices `chosen` are on a new node of type `it` (the `allNodes`
    /// devices, then the type's template devices).
    fn picks(&self, it: u32, chosen: &[usize]) -> Picks {
        let n = self.shared.len();
        let template: Vec<DeviceKey> = if chosen.iter().any(|&i| i >= n) { self.template_keys(it).collect() } else { Vec::new() };
        chosen.iter().map(|&i| if i < n { (self.shared[i].0.clone(), false) } else { (template[i - n].clone(), true) }).collect()
    }

    /// The candidate devices of existing node `n`: its own slices' and the `allNodes` ones.
    fn node_cands(&self, m: &Model, n: usize) -> Rc<Vec<NodeCand>> {
        if let Some(c) = self.node_cands.borrow().get(&n) {
            return c.clone();
        }
        let name = &m.nodes[n].name;
        let cands: Rc<Vec<NodeCand>> = Rc::new(
            m.dra
                .slices
                .iter()
                .enumerate()
                .filter(|(_, s)| s.node.as_ref().is_none_or(|x| x == name))
                .flat_map(|(si, s)| {
                    s.devices.iter().enumerate().map(move |(di, d)| NodeCand {
                        key: DeviceKey { driver: s.driver.clone(), pool: s.pool.clone(), device: d.name.clone() },
                        slice: si,
                        device: di,
                    })
                })
                .collect(),
        );
        self.node_cands.borrow_mut().insert(n, cands.clone());
        cands
    }

    /// [`Pass::verdict`] over the `allNodes` devices and the template devices of `profile`.
    fn profile_verdict(&self, m: &Model, profile: u32, search: &Search, free: &[bool]) -> Result<Option<Vec<usize>>, DraFail> {
        let devices = || {
            let shared = self.shared.iter().map(|&(_, si, di)| (m.dra.slices[si].driver.as_str(), &m.dra.slices[si].devices[di]));
            shared.chain(self.profiles[profile as usize].iter().map(|(d, dev)| (*d, dev))).collect()
        };
        self.verdict(Scope::Profile(profile), search, free, devices)
    }

    /// The search over `devices` (of `scope`) with `free`, memoised; within the pass's budget.
    fn verdict<'a>(
        &self,
        scope: Scope,
        s: &Search,
        free: &[bool],
        devices: impl FnOnce() -> Vec<(&'a str, &'a Device)>,
    ) -> Result<Option<Vec<usize>>, DraFail> {
        let mut bits = vec![0u64; free.len().div_ceil(64)];
        for (i, _) in free.iter().enumerate().filter(|(_, f)| **f) {
            bits[i / 64] |= 1 << (i % 64);
        }
        let key = (scope, s.ids.clone(), bits);
        let known = self.memo.borrow().get(&key).cloned();
        let verdict = match known {
            Some(v) => v,
            None => {
                let cached = self.matches.borrow().get(&(scope, s.ids.clone())).cloned();
                let matches = cached.unwrap_or_else(|| {
                    let devices = devices();
                    let mm: Rc<Vec<Vec<bool>>> = Rc::new(
                        s.requests
                            .iter()
                            .map(|(q, class)| devices.iter().map(|(driver, dev)| dra::device_matches(class, q, driver, dev)).collect())
                            .collect(),
                    );
                    self.matches.borrow_mut().insert((scope, s.ids.clone()), mm.clone());
                    mm
                });
                let left = self.steps_left.get();
                let limit = left.min(dra::MAX_SEARCH_STEPS);
                let mut steps = 0;
                let r = dra::search(&s.modes, &matches, free, limit, &mut steps);
                self.steps_left.set(left.saturating_sub(steps));
                let v = match r {
                    Ok(chosen) => Verdict::Fits(chosen.into_iter().flatten().collect()),
                    Err(SearchFail::NoDevices) => Verdict::NoDevices,
                    // The pass's budget, not this search's bound, ran out: no verdict to keep.
                    Err(SearchFail::TooManySteps) if limit < dra::MAX_SEARCH_STEPS => {
                        return Err(DraFail::Budget {
                            pod: format!("{}/{}", s.pod.namespace, s.pod.name),
                            document: s.pod.document,
                            claims: s.entries.iter().map(|e| e.to_string()).collect(),
                        })
                    }
                    Err(SearchFail::TooManySteps) => Verdict::TooManySteps,
                };
                self.memo.borrow_mut().insert(key, v.clone());
                v
            }
        };
        match verdict {
            Verdict::Fits(chosen) => Ok(Some(chosen)),
            Verdict::NoDevices => Ok(None),
            Verdict::TooManySteps => Err(DraFail::TooManySteps),
        }
    }

    /// Record a placement the scheduler made with `outcome` (from `check` on the same holder).
    pub fn commit(&mut self, holder: Holder, outcome: Outcome) {
        let mut pins = false;
        for (it, picks) in outcome.picks {
            for (key, local) in picks {
                pins |= local;
                match it {
                    // A template device on a NodeClaim; shared (allNodes) devices are in-cluster.
                    Some(it) if local => {
                        self.held.entry((holder, it)).or_default().insert(key);
                    }
                    _ => {
                        self.used.insert(key);
                    }
                }
            }
        }
        for c in outcome.allocated {
            self.bound.insert(c, if pins { Bound::At(holder) } else { Bound::Anywhere });
        }
    }
}

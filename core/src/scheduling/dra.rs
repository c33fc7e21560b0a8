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
//! A claim allocated in the input on a node pins every pod that uses it to that node; a claim
//! allocated in this pass with template devices pins its pods to the NodeClaim it was allocated
//! for ("claim is bound to a different in-flight NodeClaim"). A pod's claim from a
//! ResourceClaimTemplate is the one the resourceclaim controller generates for that pod alone.

use crate::dra::{self, aws, Allocation, Claim, ClaimSource, Device, DeviceKey, SearchFail};
use crate::labels::ValueId;
use crate::model::{Model, Pod};
use std::collections::{HashMap, HashSet};

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
    AllocatedOnOtherNode {
        claim: String,
        node: String,
    },
    /// No candidate instance type (or the node) has the devices; `gates_off`: the provider's
    /// DRA gates are off, so new nodes offer no devices at all.
    NoDevices {
        new_node: bool,
        gates_off: bool,
    },
    TooManySteps,
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
            DraFail::AllocatedOnOtherNode { claim, node } => {
                format!("ResourceClaim {claim}: in-cluster allocation topology is incompatible with NodeClaim requirements (allocated on node {node})")
            }
            DraFail::NoDevices { new_node: true, gates_off: true } => "allocating dynamic resources, no instance type can satisfy the allocation \
                 (the AWS provider offers no devices to a new node while its DRANVIDIAGPU and DRAEFA gates are off: --aws-feature-gates DRANVIDIAGPU=true)"
                .into(),
            DraFail::NoDevices { new_node: true, .. } => "allocating dynamic resources, no instance type can satisfy the allocation".into(),
            DraFail::NoDevices { new_node: false, .. } => "allocating dynamic resources, the node's devices cannot satisfy the allocation".into(),
            DraFail::TooManySteps => format!("allocating dynamic resources, the device search gave up after {} steps", dra::MAX_SEARCH_STEPS),
        }
    }
}

/// The devices one search picked: key, and whether it is node-local (pins the claim).
type Picks = Vec<(DeviceKey, bool)>;

/// A pod's claim, resolved.
struct Resolved<'m> {
    /// `namespace/name` of a named claim (shared); None for a claim generated from a template.
    shared: Option<String>,
    claim: &'m Claim,
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
    /// Template devices held, per holder and instance type.
    held: HashMap<(Holder, u32), HashSet<DeviceKey>>,
    /// Shared claims allocated in this pass.
    bound: HashMap<String, Bound>,
    /// The provider's templates per catalog instance type (only types that have some).
    templates: HashMap<u32, Vec<aws::Template>>,
}

impl Pass {
    pub fn new(m: &Model) -> Pass {
        let used = m.dra.claims.iter().filter_map(|c| c.allocation.as_ref()).flat_map(|a| a.devices.iter().cloned()).collect();
        let gates = &m.settings.aws_feature_gates;
        let templates = if gates.any_dra() {
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
        Pass { used, held: HashMap::new(), bound: HashMap::new(), templates }
    }

    fn resolve<'m>(&self, m: &'m Model, pod: &Pod) -> Result<Vec<Resolved<'m>>, DraFail> {
        pod.dra_claims
            .iter()
            .map(|pc| match &pc.source {
                ClaimSource::Claim(name) => m
                    .dra
                    .claim(&pod.namespace, name)
                    .map(|claim| Resolved { shared: Some(format!("{}/{name}", pod.namespace)), claim })
                    .ok_or_else(|| DraFail::ClaimNotFound(format!("{}/{name}", pod.namespace))),
                ClaimSource::Template(t) => m
                    .dra
                    .template(&pod.namespace, t)
                    .map(|claim| Resolved { shared: None, claim })
                    .ok_or_else(|| DraFail::TemplateNotFound { template: format!("{}/{t}", pod.namespace), claim: pc.name.clone() }),
            })
            .collect()
    }

    /// Whether `holder` (with candidate types `its`, or a node) can satisfy the pod's claims.
    pub fn check(&self, m: &Model, pod: &Pod, holder: Holder, its: &[u32]) -> Result<Outcome, DraFail> {
        let claims = self.resolve(m, pod)?;
        let mut open: Vec<&Resolved> = Vec::new();
        for r in &claims {
            if let Some(Allocation { node: Some(node), .. }) = &r.claim.allocation {
                let here = matches!(holder, Holder::Node(n) if &m.nodes[n].name == node);
                if !here {
                    let claim = r.shared.clone().unwrap_or_default();
                    return Err(DraFail::AllocatedOnOtherNode { claim, node: node.clone() });
                }
                continue;
            }
            if r.claim.allocation.is_some() {
                continue;
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
        let modes: Vec<dra::Mode> = requests.iter().map(|(q, _)| q.mode).collect();
        let allocated: Vec<String> = open.iter().filter_map(|r| r.shared.clone()).collect();
        match holder {
            Holder::Node(n) if !m.nodes[n].in_flight => {
                let name = &m.nodes[n].name;
                let cands: Vec<(&str, &str, &Device, bool)> = m
                    .dra
                    .slices
                    .iter()
                    .filter(|s| s.node.as_ref().is_none_or(|x| x == name))
                    .flat_map(|s| s.devices.iter().map(move |d| (s.driver.as_str(), s.pool.as_str(), d, s.node.is_some())))
                    .collect();
                let picks = self
                    .search(&cands, &requests, &modes, None, holder)?
                    .ok_or(DraFail::NoDevices { new_node: false, gates_off: false })?;
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
                let shared: Vec<(&str, &str, &Device, bool)> = m
                    .dra
                    .slices
                    .iter()
                    .filter(|s| s.node.is_none())
                    .flat_map(|s| s.devices.iter().map(move |d| (s.driver.as_str(), s.pool.as_str(), d, false)))
                    .collect();
                let mut kept = Vec::new();
                let mut picks = Vec::new();
                for &it in &its {
                    let mut cands = shared.clone();
                    for t in self.templates.get(&it).map(Vec::as_slice).unwrap_or(&[]) {
                        cands.extend(t.devices.iter().map(|d| (t.driver, t.pool.as_str(), d, true)));
                    }
                    if let Some(p) = self.search(&cands, &requests, &modes, Some(it), holder)? {
                        kept.push(it);
                        picks.push((Some(it), p));
                    }
                }
                if kept.is_empty() {
                    return Err(DraFail::NoDevices { new_node: true, gates_off: !m.settings.aws_feature_gates.any_dra() });
                }
                Ok(Outcome { its: kept, picks, allocated })
            }
        }
    }

    /// One search over candidates (driver, pool, device, node-local or template): the devices
    /// picked (key, whether it pins the claim), or None when none fits.
    fn search(
        &self,
        cands: &[(&str, &str, &Device, bool)],
        requests: &[(&dra::Request, &dra::DeviceClass)],
        modes: &[dra::Mode],
        it: Option<u32>,
        holder: Holder,
    ) -> Result<Option<Picks>, DraFail> {
        let keys: Vec<DeviceKey> =
            cands.iter().map(|(d, p, dev, _)| DeviceKey { driver: d.to_string(), pool: p.to_string(), device: dev.name.clone() }).collect();
        let held = it.and_then(|it| self.held.get(&(holder, it)));
        let free: Vec<bool> = keys
            .iter()
            .zip(cands)
            .map(|(k, c)| if c.3 && it.is_some() { held.is_none_or(|h| !h.contains(k)) } else { !self.used.contains(k) })
            .collect();
        let matches: Vec<Vec<bool>> = requests
            .iter()
            .map(|(q, class)| cands.iter().map(|(driver, _, dev, _)| dra::device_matches(class, q, driver, dev)).collect())
            .collect();
        match dra::search(modes, &matches, &free) {
            Ok(chosen) => Ok(Some(chosen.into_iter().flatten().map(|d| (keys[d].clone(), cands[d].3)).collect())),
            Err(SearchFail::NoDevices) => Ok(None),
            Err(SearchFail::TooManySteps) => Err(DraFail::TooManySteps),
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

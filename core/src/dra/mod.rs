//! Dynamic Resource Allocation as Karpenter v1.15.0 simulates it with `--ignore-dra-requests=false`
//! (pkg/scheduling/dynamicresources): the resource.k8s.io/v1 objects of the input as lowering
//! validated them ([`Dra`]), the AWS provider's device templates for new nodes ([`aws`]), the
//! CEL subset of device selectors ([`cel`]) and the device search ([`search`]). How a pass of
//! the scheduler uses them is `scheduling::dra`.
//!
//! Modelled: ExactCount and All requests (`exactly`), DeviceClass and request CEL selectors,
//! devices of input ResourceSlices (node-local by `nodeName`, or `allNodes`) for existing nodes,
//! the provider's templates for new NodeClaims, claims already allocated in the input (their
//! devices taken, their node pinned), claims shared by several pods. Refused with a located
//! error when read (never silently ignored): `firstAvailable`, constraints, consumable capacity
//! and shared counters (partitionable devices), ResourceSlices with a `nodeSelector` or
//! `perDeviceNodeSelection`, device taints, admin access.

pub mod aws;
#[rustfmt::skip]
mod aws_devices;
pub mod cel;
mod profile;

use serde::{Deserialize, Serialize};

/// k8s.io/api resource/v1 `AllocationResultsMaxSize`: devices one claim may get.
pub const MAX_CLAIM_DEVICES: usize = 32;

/// Steps the device search may take for one pod and one instance type before it gives up, as
/// Karpenter's allocator gives up after 5 s (allocator.go `allocateTimeout`): a bound on time
/// whatever the input.
pub const MAX_SEARCH_STEPS: usize = 100_000;

/// Steps every device search of one scheduling pass may take together (nodecast's own bound,
/// not Karpenter's): searches are memoised per (claims, devices, free devices), but a request
/// can still hold many distinct searches of up to [`MAX_SEARCH_STEPS`] each; past this the pass
/// refuses further searches with a located reason (`scheduling::dra::DraFail::Budget`).
/// 200 full searches, about a second of CPU.
pub const MAX_PASS_STEPS: usize = 200 * MAX_SEARCH_STEPS;

/// A typed device attribute (resource/v1 `DeviceAttribute`: exactly one of its values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrValue {
    Str(String),
    Int(i64),
    Bool(bool),
    Version(String),
}

/// A device: attributes and capacities keyed by (possibly domain-qualified) name; capacities in
/// milli-units.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub name: String,
    pub attributes: Vec<(String, AttrValue)>,
    pub capacity: Vec<(String, i64)>,
}

/// A DeviceClass: its CEL selectors.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceClass {
    pub name: String,
    pub selectors: Vec<cel::Expr>,
}

/// How many devices a request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ExactCount(u32),
    All,
}

/// One `spec.devices.requests[]` entry (`exactly`).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub name: String,
    pub class: String,
    pub selectors: Vec<cel::Expr>,
    pub mode: Mode,
}

/// A device by its identity: driver, pool, device name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceKey {
    pub driver: String,
    pub pool: String,
    pub device: String,
}

/// `status.allocation` of a claim the input already allocated.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// The node its `nodeSelector` names (`matchFields: metadata.name`), if any. Karpenter reads
    /// no topology from such a selector, so it pins no pod (scheduling/dra.rs `check`).
    pub node: Option<String>,
    pub devices: Vec<DeviceKey>,
}

/// One `status.reservedFor` entry of a claim: whether it is a pod (`resource: pods`, core
/// group), and its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumer {
    pub pod: bool,
    pub uid: String,
}

/// A ResourceClaim (or a ResourceClaimTemplate's `spec.spec`, with `allocation` None).
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub namespace: String,
    pub name: String,
    pub requests: Vec<Request>,
    pub allocation: Option<Allocation>,
    /// `status.reservedFor`: who uses the allocation (a claim reserved only by pods that a
    /// disruption moves is allocated again, `scheduling::dra`).
    pub reserved_for: Vec<Consumer>,
}

/// A ResourceSlice: node-local (`nodeName`) or for every node (`allNodes`, `node` None).
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    pub name: String,
    pub driver: String,
    pub pool: String,
    pub node: Option<String>,
    pub devices: Vec<Device>,
}

/// The resource.k8s.io objects of the input, validated (lower/dra.rs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dra {
    pub classes: Vec<DeviceClass>,
    pub claims: Vec<Claim>,
    pub templates: Vec<Claim>,
    pub slices: Vec<Slice>,
}

impl Dra {
    pub fn class(&self, name: &str) -> Option<&DeviceClass> {
        self.classes.iter().find(|c| c.name == name)
    }
    pub fn claim(&self, namespace: &str, name: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.namespace == namespace && c.name == name)
    }
    pub fn template(&self, namespace: &str, name: &str) -> Option<&Claim> {
        self.templates.iter().find(|c| c.namespace == namespace && c.name == name)
    }
}

/// Where a pod's `spec.resourceClaims[]` entry gets its claim.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClaimSource {
    /// `resourceClaimName`: a claim shared by every pod that names it.
    Claim(String),
    /// `resourceClaimTemplateName`: the claim the resourceclaim controller generates for this
    /// pod from the template (Karpenter reads it from the pod's status once generated).
    Template(String),
}

/// One `spec.resourceClaims[]` entry of a pod.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PodClaim {
    pub name: String,
    pub source: ClaimSource,
}

/// Why the search found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchFail {
    /// No assignment of free devices satisfies the requests.
    NoDevices,
    /// The step limit the caller gave ran out.
    TooManySteps,
}

/// Karpenter's device search (allocator.go `dfs`) over `candidates` (in-cluster devices first,
/// then templates, in order): every request of every claim, in order, gets its devices; an
/// ExactCount request `n` free matching devices, an All request every matching device (none
/// taken, at least one). A device serves one request. Returns, per request (claims flattened in
/// order), the candidate indices chosen.
///
/// `matches[r][d]`: candidate `d` matches request `r` (class and request selectors);
/// `free[d]`: nobody holds candidate `d`. Within one ExactCount request the chosen indices
/// increase: the same sets as Karpenter's slot-by-slot search, without trying each set once per
/// order. Gives up after `limit` steps; `steps` counts the steps taken (added to).
pub fn search(
    modes: &[Mode],
    matches: &[Vec<bool>],
    free: &[bool],
    limit: usize,
    steps: &mut usize,
) -> Result<Vec<Vec<usize>>, SearchFail> {
    let mut chosen: Vec<Vec<usize>> = vec![Vec::new(); modes.len()];
    let mut taken = vec![false; free.len()];
    let mut used = 0usize;
    let r = search_from(modes, matches, free, limit, &mut used, &mut taken, &mut chosen);
    *steps += used;
    r.map(|()| chosen)
}

fn search_from(
    modes: &[Mode],
    matches: &[Vec<bool>],
    free: &[bool],
    limit: usize,
    steps: &mut usize,
    taken: &mut [bool],
    chosen: &mut [Vec<usize>],
) -> Result<(), SearchFail> {
    // All requests first take exactly what they must: every matching device.
    for (r, mode) in modes.iter().enumerate() {
        if *mode == Mode::All {
            let all: Vec<usize> = (0..free.len()).filter(|&d| matches[r][d]).collect();
            if all.is_empty() || all.iter().any(|&d| !free[d] || taken[d]) || all.len() > MAX_CLAIM_DEVICES {
                return Err(SearchFail::NoDevices);
            }
            for &d in &all {
                taken[d] = true;
            }
            chosen[r] = all;
        }
    }
    /// The search's fixed inputs, so the recursion passes one reference for them.
    struct Ctx<'a> {
        modes: &'a [Mode],
        matches: &'a [Vec<bool>],
        free: &'a [bool],
        limit: usize,
    }
    fn dfs(c: &Ctx, r: usize, from: usize, taken: &mut [bool], chosen: &mut [Vec<usize>], steps: &mut usize) -> Result<bool, SearchFail> {
        let Some(mode) = c.modes.get(r) else { return Ok(true) };
        let Mode::ExactCount(n) = *mode else { return dfs(c, r + 1, 0, taken, chosen, steps) };
        if chosen[r].len() == n as usize {
            return dfs(c, r + 1, 0, taken, chosen, steps);
        }
        for d in from..c.free.len() {
            *steps += 1;
            if *steps > c.limit {
                return Err(SearchFail::TooManySteps);
            }
            if !c.free[d] || taken[d] || !c.matches[r][d] {
                continue;
            }
            taken[d] = true;
            chosen[r].push(d);
            if dfs(c, r, d + 1, taken, chosen, steps)? {
                return Ok(true);
            }
            chosen[r].pop();
            taken[d] = false;
        }
        Ok(false)
    }
    if dfs(&Ctx { modes, matches, free, limit }, 0, 0, taken, chosen, steps)? {
        Ok(())
    } else {
        Err(SearchFail::NoDevices)
    }
}

/// Whether `device` of `driver` matches every selector of the request's class and the request.
pub fn device_matches(class: &DeviceClass, request: &Request, driver: &str, device: &Device) -> bool {
    class.selectors.iter().chain(&request.selectors).all(|s| cel::matches(s, device, driver))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(modes: &[Mode], matches: &[Vec<bool>], free: &[bool]) -> Result<Vec<Vec<usize>>, SearchFail> {
        super::search(modes, matches, free, MAX_SEARCH_STEPS, &mut 0)
    }

    #[test]
    fn search_backtracks_and_honours_all() {
        // Request 0 takes any device, request 1 only device 0: the search must give 0 to request 1.
        let modes = [Mode::ExactCount(1), Mode::ExactCount(1)];
        let matches = vec![vec![true, true], vec![true, false]];
        assert_eq!(search(&modes, &matches, &[true, true]).unwrap(), vec![vec![1], vec![0]]);
        assert_eq!(search(&modes, &matches, &[false, true]), Err(SearchFail::NoDevices));
        // All: every matching device, none taken; none matching fails.
        let all = [Mode::All];
        assert_eq!(search(&all, &[vec![true, false, true]], &[true, true, true]).unwrap(), vec![vec![0, 2]]);
        assert_eq!(search(&all, &[vec![true, false, true]], &[true, true, false]), Err(SearchFail::NoDevices));
        assert_eq!(search(&all, &[vec![false]], &[true]), Err(SearchFail::NoDevices));
        // Two devices for one request, three candidates of which one is held.
        assert_eq!(search(&[Mode::ExactCount(2)], &[vec![true; 3]], &[true, false, true]).unwrap(), vec![vec![0, 2]]);
        assert_eq!(search(&[Mode::ExactCount(3)], &[vec![true; 3]], &[true, false, true]), Err(SearchFail::NoDevices));
    }

    #[test]
    fn search_is_bounded() {
        // 40 requests of one device each over 39 matching devices: exponential without the bound.
        let modes = vec![Mode::ExactCount(1); 40];
        let matches = vec![vec![true; 39]; 40];
        assert_eq!(search(&modes, &matches, &[true; 39]), Err(SearchFail::TooManySteps));
        // The steps are counted, and a smaller limit stops sooner.
        let mut steps = 0;
        assert_eq!(super::search(&modes, &matches, &[true; 39], 500, &mut steps), Err(SearchFail::TooManySteps));
        assert_eq!(steps, 501);
        // 7 devices for 8 one-device requests: no answer, after 95,900 steps (under the bound).
        let mut steps = 0;
        let (modes, matches) = (vec![Mode::ExactCount(1); 8], vec![vec![true; 7]; 8]);
        assert_eq!(super::search(&modes, &matches, &[true; 7], MAX_SEARCH_STEPS, &mut steps), Err(SearchFail::NoDevices));
        assert_eq!(steps, 95_900);
    }
}

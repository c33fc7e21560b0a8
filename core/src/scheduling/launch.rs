//! Finalising planned NodeClaims and choosing what is launched (spec §5.20, §6.3–§6.6,
//! FORMAT §2.4).

use super::claim::{self, PlannedClaim, Template};
use super::offering_compatible;
use super::Solution;
use crate::catalog::Offering;
use crate::model::{MinValuesPolicy, Model};
use crate::requirements::Requirements;
use crate::requirements::Without;
use crate::resources::Resources;

/// AWS launch-time truncation (R6.3 step 7).
pub const AWS_MAX_INSTANCE_TYPES: usize = 60;

pub use crate::model::Launch;

#[derive(Debug, Clone)]
pub struct FinalClaim {
    pub claim: usize,
    /// Instance-type options, cheapest first, truncated to MaxInstanceTypes (R5.20.3).
    pub options: Vec<u32>,
    pub launch: Option<Launch>,
    /// Requests of the pods plus the daemons that will run on the launched type.
    pub requests: Resources,
    pub daemons: Vec<usize>,
}

/// Can a node be launched into `o` now: available and, for a reserved offering, its
/// reservation has instances left (Karpenter's `Offering.Launchable`, cloudprovider/types.go).
pub fn launchable(o: &Offering, m: &Model) -> bool {
    o.available && o.reservation.is_none_or(|r| m.reservations[r as usize].available > 0)
}

/// Cheapest launchable offering of `it` compatible with `r` (R5.20.6 price key; Karpenter
/// orders by launchable offerings, so a full reservation does not make a type look free).
pub fn min_price(it: u32, r: &Requirements, m: &Model) -> f64 {
    m.catalog.types[it as usize]
        .offerings
        .iter()
        .filter(|o| launchable(o, m) && offering_compatible(o, r, m))
        .map(|o| o.price)
        .fold(f64::MAX, f64::min)
}

/// Sort by price, then name (determinism recommendation). Each price is computed once.
pub fn sort_by_price(its: &mut [u32], r: &Requirements, m: &Model) {
    let mut keyed: Vec<(f64, u32)> = its.iter().map(|&i| (min_price(i, r, m), i)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| m.catalog.types[a.1 as usize].name.cmp(&m.catalog.types[b.1 as usize].name)));
    for (slot, (_, i)) in its.iter_mut().zip(keyed) {
        *slot = i;
    }
}

/// Options and launch, or the minValues shortfall (key, minValues, values found).
pub type Decision = Result<(Vec<u32>, Option<Launch>), (crate::labels::KeyId, u32, usize)>;

/// Finalise one claim. `Err` carries the minValues shortfall when truncation violates it.
pub fn finalize(c: usize, pc: &PlannedClaim, t: &Template, m: &Model) -> Result<FinalClaim, (crate::labels::KeyId, u32, usize)> {
    let (options, launch) = decide(&pc.its, &launch_requirements(pc, m), m)?;
    Ok(finish(c, pc, t, options, launch))
}

/// The requirements a planned claim is launched (and, in disruption, price-filtered) under:
/// Karpenter's `FinalizeScheduling` (scheduling/nodeclaim.go) pins a NodeClaim that holds
/// reservations to capacity type `reserved` and to the reservation ids it holds. It runs for
/// every Solve, so a consolidation, drift or repair replacement that reserved a free slot in
/// the simulation keeps only its reserved offerings too.
pub fn launch_requirements<'a>(pc: &'a PlannedClaim, m: &Model) -> std::borrow::Cow<'a, Requirements> {
    if pc.reserved.is_empty() {
        std::borrow::Cow::Borrowed(&pc.requirements)
    } else {
        std::borrow::Cow::Owned(crate::catalog::launch_reserved::pin(&pc.requirements, &pc.reserved, m))
    }
}

/// The options (cheapest first, truncated) and the launch for candidate types `its` under
/// requirements `r`. It depends on nothing else, so claims with the same candidates and
/// requirements (but for their placeholder hostname) share it.
pub fn decide(its: &[u32], r: &Requirements, m: &Model) -> Decision {
    let mut options = its.to_vec();
    sort_by_price(&mut options, r, m);
    options.truncate(m.settings.max_instance_types);
    if claim::has_min_values(r) && m.settings.min_values_policy == MinValuesPolicy::Strict {
        if let Some(short) = claim::min_values_shortfall(&options, r, m) {
            return Err(short);
        }
    }
    let launch = choose_launch(&options, r, m);
    Ok((options, launch))
}

/// The claim's own part: requests and daemons of the launched type.
pub fn finish(c: usize, pc: &PlannedClaim, t: &Template, options: Vec<u32>, launch: Option<Launch>) -> FinalClaim {
    let (requests, daemons) = match &launch {
        Some(l) => {
            let g = &t.groups[t.group_of[l.it as usize]];
            (pc.requests.plus(&g.overhead), g.daemons.clone())
        }
        None => (pc.requests.clone(), Vec::new()),
    };
    FinalClaim { claim: c, options, launch, requests, daemons }
}

/// The launch decision: AWS launch filters, then capacity type (spot preferred when allowed and
/// available), then the cheapest (type, zone) offering; ties by type name then zone name.
pub fn choose_launch(options: &[u32], r: &Requirements, m: &Model) -> Option<Launch> {
    let spot = m.keys.spot;
    let od = m.keys.on_demand;
    // (type, offerings still eligible): launchable ones (the AWS provider's
    // compatible-launchable filter).
    let mut cands: Vec<(u32, Vec<Offering>)> = options
        .iter()
        .map(|&i| {
            let offs = m.catalog.types[i as usize]
                .offerings
                .iter()
                .filter(|o| launchable(o, m) && offering_compatible(o, r, m))
                .copied()
                .collect();
            (i, offs)
        })
        .filter(|(_, o): &(u32, Vec<Offering>)| !o.is_empty())
        .collect();
    // Reserved first (instance.go getCapacityType), through the reservation filters.
    let reserved_allowed = r.get(m.keys.capacity_type).is_none_or(|c| c.has(m.keys.reserved, &m.interner));
    if reserved_allowed && cands.iter().any(|(_, o)| o.iter().any(|x| x.reservation.is_some())) {
        crate::catalog::launch_reserved::filter(&mut cands, m);
    }
    let min_values = claim::has_min_values(r);
    if m.catalog.is_aws() && !min_values {
        // Exotic filter (R6.3 step 5): metal and accelerator types only when nothing else fits.
        if cands.iter().any(|(i, _)| !m.catalog.types[*i as usize].exotic) {
            cands.retain(|(i, _)| !m.catalog.types[*i as usize].exotic);
        }
        // Spot-vs-on-demand price filter (R6.3 step 6).
        let cheapest_od =
            cands.iter().flat_map(|(_, o)| o.iter()).filter(|o| o.capacity_type == od).map(|o| o.price).fold(f64::MAX, f64::min);
        let any_spot = cands.iter().any(|(_, o)| o.iter().any(|x| x.capacity_type == spot));
        if cheapest_od < f64::MAX && any_spot {
            for (_, offs) in cands.iter_mut() {
                offs.retain(|o| o.capacity_type != spot || o.price <= cheapest_od);
            }
            cands.retain(|(_, o)| !o.is_empty());
        }
        cands.sort_by(|a, b| {
            let pa = a.1.iter().map(|o| o.price).fold(f64::MAX, f64::min);
            let pb = b.1.iter().map(|o| o.price).fold(f64::MAX, f64::min);
            pa.total_cmp(&pb).then_with(|| m.catalog.types[a.0 as usize].name.cmp(&m.catalog.types[b.0 as usize].name))
        });
        cands.truncate(AWS_MAX_INSTANCE_TYPES);
    }
    let spot_allowed = r.get(m.keys.capacity_type).is_none_or(|c| c.has(spot, &m.interner));
    let ct = if reserved_allowed && cands.iter().any(|(_, o)| o.iter().any(|x| x.reservation.is_some())) {
        m.keys.reserved
    } else if spot_allowed && cands.iter().any(|(_, o)| o.iter().any(|x| x.capacity_type == spot)) {
        spot
    } else {
        od
    };
    let mut best: Option<Launch> = None;
    for (i, offs) in &cands {
        for o in offs.iter().filter(|o| o.capacity_type == ct) {
            let better = match &best {
                None => true,
                Some(b) => {
                    let name = |x: u32| m.catalog.types[x as usize].name.as_str();
                    o.price
                        .total_cmp(&b.price)
                        .then_with(|| name(*i).cmp(name(b.it)))
                        .then_with(|| m.interner.str(o.zone).cmp(m.interner.str(b.zone)))
                        .is_lt()
                }
            };
            if better {
                best = Some(Launch { it: *i, capacity_type: ct, zone: o.zone, price: o.price, reservation: o.reservation });
            }
        }
    }
    best
}

/// A claim whose options, cut to `MaxInstanceTypes`, no longer meet a minValues requirement
/// (strict policy): its pods stay pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinValuesShortfall {
    /// The NodePool of the claim.
    pub pool: usize,
    /// The requirement key with minValues.
    pub key: crate::labels::KeyId,
    /// Its minValues.
    pub min: u32,
    /// Distinct values the truncated options still offer.
    pub found: usize,
}

/// The names of a pass's NodeClaims, in `finals` order: `<nodepool>-<n>`, numbered per NodePool
/// from 1 in launch order. The plan and the optimiser's copy of Karpenter's plan both use them,
/// so a claim has one name wherever it is shown.
pub fn claim_names(m: &Model, sol: &Solution, finals: &[FinalClaim]) -> Vec<String> {
    let mut per_pool = vec![0usize; m.node_pools.len()];
    finals
        .iter()
        .map(|f| {
            let pool = sol.templates[sol.claims[f.claim].template].pool;
            per_pool[pool] += 1;
            format!("{}-{}", m.node_pools[pool].name, per_pool[pool])
        })
        .collect()
}

/// A claim's decision key: template, candidates, requirements but the hostname, reservations held.
type DecisionKey<'a> = (usize, &'a [u32], Without<'a>, &'a [u32]);

/// Launch decisions for every claim; claims whose truncation breaks minValues fail their pods.
pub fn finalize_claims(m: &Model, sol: &Solution) -> (Vec<FinalClaim>, Vec<(usize, MinValuesShortfall)>) {
    let mut out = Vec::new();
    let mut failed = Vec::new();
    // Claims with the same template, candidates and requirements (but for the placeholder
    // hostname) get the same options and launch: tens of thousands of GPU claims come from a
    // few pod shapes, and sorting each one's candidates by price dominated rendering.
    // FinalizeScheduling: a claim holding reservations launches only into them. The pinned
    // requirements are a function of the claim's own and the reservations it holds, so those
    // key the memo and a claim's are built only when its decision is not known yet (thousands
    // of reserved GPU claims cloned theirs each).
    let mut decided: crate::fxhash::FxHashMap<DecisionKey, Decision> = Default::default();
    for (c, pc) in sol.claims.iter().enumerate() {
        let t = &sol.templates[pc.template];
        let r = Without { reqs: &pc.requirements, skip: [m.keys.hostname; 4] };
        let decision = decided
            .entry((pc.template, &pc.its, r, pc.reserved.as_slice()))
            .or_insert_with(|| decide(&pc.its, &launch_requirements(pc, m), m))
            .clone();
        match decision.map(|(options, l)| finish(c, pc, t, options, l)) {
            Ok(f) => out.push(f),
            Err((key, min, found)) => {
                let shortfall = MinValuesShortfall { pool: t.pool, key, min, found };
                failed.extend(pc.pods.iter().map(|&p| (p, shortfall)));
            }
        }
    }
    (out, failed)
}

//! The optimisation instance built from a loaded model: identical pods grouped into counts,
//! and the (NodePool, instance type, capacity type, zone) offerings each group may use.
//!
//! Compatibility is decided by the scheduler's own predicates (`it_labels_compatible`,
//! `offering_compatible`, `Requirements::compatible`, `first_untolerated`) and the NodePool
//! templates' rooms (allocatable − DaemonSet overhead), so the optimiser and Karpenter's plan
//! agree on what may go where.

use crate::labels::ValueId;
use crate::model::{LimitKey, Model};
use crate::scheduling::claim::Template;
use crate::scheduling::offering_compatible;

pub use super::class::{pod_admits, Class};
pub use super::group::Group;

/// What a limit row bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A NodePool's `spec.limits` entry (nodes in thousandths, as Karpenter's resource lists).
    Pool { pool: usize, key: LimitKey },
    /// A capacity reservation's free instances (index into `Model::reservations`): one per
    /// node launched into it, from every NodePool whose EC2NodeClass selected it.
    Reservation(u32),
    /// An existing node's free room (index into `Instance::bins`): at most one such "node".
    Existing(usize),
}

/// A limit still open after existing nodes and the kept (fixed) NodeClaims.
#[derive(Debug, Clone)]
pub struct LimitRow {
    pub scope: Scope,
    pub remaining: i64,
}

impl LimitRow {
    /// What one node of `class` uses of this row.
    pub fn use_of(&self, class_pool: usize, reservation: Option<u32>, it: &crate::model::InstanceType) -> i64 {
        match self.scope {
            Scope::Pool { pool, .. } if pool != class_pool => 0,
            Scope::Pool { key: LimitKey::Nodes, .. } => 1000,
            Scope::Pool { key: LimitKey::Resource(r), .. } => it.capacity.get(r),
            Scope::Reservation(r) => i64::from(reservation == Some(r)),
            Scope::Existing(_) => 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Instance {
    pub dims: usize,
    pub groups: Vec<Group>,
    pub classes: Vec<Class>,
    pub limits: Vec<LimitRow>,
    /// Which groups may share a node and how many of a selection one node holds (hostname
    /// anti-affinity, hostname spreads, host ports).
    pub rules: Rules,
    /// Per template: its minValues rule (`flex`), None without one.
    pub flex: Vec<Option<super::flex::Flex>>,
    /// Existing nodes whose free room is a class of price 0 (`existing::add`).
    pub bins: Vec<Bin>,
}

impl Instance {
    /// Does one node of `class` holding `counts` keep its NodePool's minValues (downward closed)?
    pub fn flex_ok(&self, class: &Class, counts: &[u32]) -> bool {
        let Some(Some(flex)) = self.flex.get(class.template) else { return true };
        let pinned = counts.iter().enumerate().any(|(g, &n)| n > 0 && self.rules.zones.zoned(g));
        flex.shortfall(&self.groups, class, counts, pinned).is_none()
    }
}

/// Build the instance: `groups` of free pods (already split), templates in pool order, and the
/// limits remaining per pool.
/// `rules`: the node-content rules of `groups` (`affinity::rules`, which may split groups, so it
/// runs first).
pub fn build(m: &Model, templates: &[Template], groups: Vec<Group>, limits: Vec<LimitRow>, rules: Rules) -> Instance {
    let dims = m.resources.len();
    let mut classes: Vec<Class> = Vec::new();
    for (ti, t) in templates.iter().enumerate() {
        for &it in &t.its {
            let row = t.room.of(it);
            // A type with a negative allocatable fits nothing (all of its row is i64::MIN).
            if row.first().is_some_and(|&v| v == i64::MIN) {
                continue;
            }
            let room: Vec<i64> = (0..dims).map(|r| row.get(r).copied().unwrap_or(0)).collect();
            let it_ref = &m.catalog.types[it as usize];
            // One class per offering; among offerings of the type admitting the same groups,
            // only the cheapest is kept (zone and capacity type then name order decide ties) —
            // unless the cheaper one is a reservation's: its count is bounded, so the dearer
            // offering stays for the nodes the reservation has no room for (and one
            // reservation's offering never stands in for another's).
            let mut offers: Vec<(f64, String, String, ValueId, ValueId, Option<u32>)> = it_ref
                .offerings
                .iter()
                .filter(|o| o.available && offering_compatible(o, &t.requirements, m))
                .map(|o| {
                    let (ct, zone) = (m.interner.str(o.capacity_type).to_string(), m.interner.str(o.zone).to_string());
                    (o.price, ct, zone, o.zone, o.capacity_type, o.reservation)
                })
                .collect();
            offers.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)).then_with(|| a.2.cmp(&b.2)).then(a.5.cmp(&b.5)));
            let mut seen: Vec<(Vec<bool>, Option<u32>, ValueId)> = Vec::new();
            for (price, _, _, zone, ct, reservation) in offers {
                let admits: Vec<bool> = groups
                    .iter()
                    .enumerate()
                    .map(|(gi, g)| rules.zones.admits(gi, zone) && pod_admits(&m.pods[g.pods[0]], t, it, zone, ct, reservation, m))
                    .collect();
                // A group with zone rules needs a class in every zone it may use.
                let zoned = admits.iter().enumerate().any(|(gi, &a)| a && rules.zones.zoned(gi));
                let covered = seen.iter().any(|(a, r, z)| *a == admits && (r.is_none() || *r == reservation) && (!zoned || *z == zone));
                if !admits.iter().any(|&a| a) || covered {
                    continue;
                }
                seen.push((admits.clone(), reservation, zone));
                let limit_use = limits.iter().map(|l| l.use_of(t.pool, reservation, it_ref)).collect();
                classes.push(Class {
                    template: ti,
                    pool: t.pool,
                    it,
                    zone,
                    capacity_type: ct,
                    reservation,
                    price,
                    room: room.clone(),
                    admits,
                    limit_use,
                    existing: None,
                });
            }
        }
    }
    let zoned: Vec<bool> = (0..groups.len()).map(|g| rules.zones.zoned(g)).collect();
    let classes = undominated(classes, &zoned);
    let flex = super::flex::build(m, templates, &groups, dims);
    Instance { dims, groups, classes, limits, rules, flex, bins: Vec::new() }
}

/// Drop every class another class beats on all counts: no dearer, at least as much room,
/// admits every group it admits, uses no more of any limit, and — when it admits a group with
/// zone rules (`zoned`) — in the same zone. Keeps the first of equals.
fn undominated(classes: Vec<Class>, zoned: &[bool]) -> Vec<Class> {
    let beats = |a: &Class, b: &Class| {
        (a.zone == b.zone || !b.admits.iter().zip(zoned).any(|(x, z)| *x && *z))
            && a.price <= b.price
            && a.room.iter().zip(&b.room).all(|(x, y)| x >= y)
            && a.admits.iter().zip(&b.admits).all(|(x, y)| *x || !*y)
            && a.limit_use.iter().zip(&b.limit_use).all(|(x, y)| x <= y)
    };
    let keep: Vec<bool> = (0..classes.len())
        .map(|i| !(0..classes.len()).any(|j| j != i && beats(&classes[j], &classes[i]) && (j < i || !beats(&classes[i], &classes[j]))))
        .collect();
    classes.into_iter().zip(keep).filter_map(|(c, k)| k.then_some(c)).collect()
}

/// "A node holding a pod of `owner` holds at most `most` pods of `members`" (a hostname spread).
#[derive(Debug, Clone)]
pub struct Cap {
    pub owner: usize,
    pub members: Vec<usize>,
    pub most: u32,
}

/// "A node holding a pod of `owner` holds at least `least` pods of `members`" (a required
/// hostname pod affinity: `least` is 2 when the owner's own pods are members, as each pod
/// needs another matching pod beside it). Not downward closed: the groups it counts are
/// covered exactly (`Rules::exact`), so the integer program never drops a pod it relies on.
#[derive(Debug, Clone)]
pub struct Need {
    pub owner: usize,
    pub members: Vec<usize>,
    pub least: u32,
}

/// The node-content rules of an instance's groups.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// Per group, the other groups it may not share a node with (ascending).
    pub conflicts: Vec<Vec<usize>>,
    /// Hostname spreads.
    pub caps: Vec<Cap>,
    /// Required hostname pod affinity.
    pub needs: Vec<Need>,
    /// Per group: covered exactly (`== count`, not `≥`) because a `Need` counts it.
    pub exact: Vec<bool>,
    /// Zone spreads and zone anti-affinity: rows of the integer program, not of a node.
    pub zones: super::zones::ZoneRules,
}

impl Rules {
    /// Does one node holding `counts` pods per group keep every rule? Downward closed: fewer
    /// pods of any group never break a rule, so maximal patterns stay enough.
    pub fn allows(&self, counts: &[u32]) -> bool {
        for (g, others) in self.conflicts.iter().enumerate() {
            if counts[g] > 0 && others.iter().any(|&h| counts[h] > 0) {
                return false;
            }
        }
        self.caps.iter().all(|c| counts[c.owner] == 0 || c.members.iter().map(|&h| counts[h]).sum::<u32>() <= c.most)
    }

    /// Does one node holding `counts` keep every rule, the required affinities included (not
    /// downward closed: a pattern the listing emits, or a node the answer opens)?
    pub fn holds(&self, counts: &[u32]) -> bool {
        self.allows(counts)
            && self.needs.iter().all(|n| counts[n.owner] == 0 || n.members.iter().map(|&h| counts[h]).sum::<u32>() >= n.least)
    }

    /// Is group `g` covered exactly?
    pub fn is_exact(&self, g: usize) -> bool {
        self.exact.get(g).copied().unwrap_or(false)
    }

    /// Drop the required affinities (a relaxation of the rules: the whole plan's bound).
    pub fn relax_needs(&mut self) {
        self.needs.clear();
        self.exact.iter_mut().for_each(|e| *e = false);
    }

    /// Any rule at all (the instance is plain packing without them).
    pub fn is_empty(&self) -> bool {
        self.caps.is_empty() && self.needs.is_empty() && self.conflicts.iter().all(Vec::is_empty) && self.zones.is_empty()
    }
}

/// One existing node as a bin of the model (`existing::add` makes them; it lives here so that
/// the instance does not import the module that fills it).
#[derive(Debug, Clone)]
pub struct Bin {
    /// Index into `Model::nodes`.
    pub node: usize,
    /// Room per resource id for the pods the model places here.
    pub room: Vec<i64>,
    /// Pods that stay on it: bound ones, and those Karpenter puts here that the model does not move.
    pub staying: Vec<usize>,
    pub requirements: std::sync::Arc<crate::requirements::Requirements>,
    pub taints: std::sync::Arc<Vec<crate::taints::Taint>>,
    /// The bound's bin: admits by requirements, taints and requests only.
    pub relaxed: bool,
}

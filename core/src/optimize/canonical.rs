//! The canonical form of an optimum: among the packings that cost the same, the one the
//! instance alone picks, not the solver.
//!
//! Why: HiGHS (CLI, Python) and microlp (wasm, CLIs built without HiGHS) each stop at their own
//! optimal vertex, and where several packings cost the same they differ in which pods share a
//! node (8 of about 40 optimize test cases did on 2026-11-29, issue 35), so the playground and
//! the CLI answered different bytes for the same input. A secondary objective that makes the
//! optimum unique would need weights far below the prices' precision (reserved offerings cost
//! on-demand / 10^7) and above the solvers' gap tolerance at once, so the tie is broken after
//! the solve instead: the solver's answer fixes only what every optimum of its cost shares
//! here — the multiset of node classes (NodePool, type, capacity type, zone, or an existing
//! node's room) and, for groups with zone rules, how many of their pods each zone holds — and
//! the pods are packed anew onto those nodes in an order of their own (biggest groups first,
//! nodes by class index). Every rule of a node's contents is checked on the way (resources,
//! "one per node", hostname rules, minValues); zone counts, limits and reservations are those
//! of the solver's answer, since the class multiset and the per-zone counts are. When the
//! greedy re-pack misses (a tight packing it cannot find, or a required affinity it splits),
//! the solver's packing is kept, in a canonical node order.

use super::instance::Instance;
use crate::labels::ValueId;
use std::collections::BTreeMap;

/// One node in group counts: its class and the pods of each group on it.
pub type Slot = (usize, Vec<u32>);

/// The canonical re-pack of `slots` (see the module's comment), or `slots` themselves in
/// canonical order when the re-pack misses.
pub fn repack(inst: &Instance, mut slots: Vec<Slot>) -> Vec<Slot> {
    slots.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    let ng = inst.groups.len();
    // Pods to place per (group, zone for a group with zone rules).
    let key = |g: usize, class: usize| (g, inst.rules.zones.zoned(g).then(|| inst.classes[class].zone));
    let mut demand: BTreeMap<(usize, Option<ValueId>), u32> = BTreeMap::new();
    for (c, counts) in &slots {
        for (g, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
            *demand.entry(key(g, *c)).or_insert(0) += n;
        }
    }
    let order = super::solve::size_order(inst);
    let mut out: Vec<Slot> = Vec::with_capacity(slots.len());
    for (c, _) in &slots {
        let class = &inst.classes[*c];
        let mut counts = vec![0u32; ng];
        let mut left = class.room.clone();
        for &g in &order {
            let group = &inst.groups[g];
            let want = demand.get(&key(g, *c)).copied().unwrap_or(0);
            if want == 0 || !class.admits[g] {
                continue;
            }
            let mut add = i64::from(want.min(class.max_of(g, group)));
            for (l, need) in left.iter().zip(&group.requests) {
                if *need > 0 {
                    add = add.min(l / need);
                }
            }
            // The hostname rules and minValues are downward closed: step down to the most
            // that keeps them (a node holds at most a few hundred pods).
            while add > 0 {
                counts[g] = add as u32;
                if inst.rules.allows(&counts) && inst.flex_ok(class, &counts) {
                    break;
                }
                add -= 1;
            }
            counts[g] = add.max(0) as u32;
            if add > 0 {
                for (l, need) in left.iter_mut().zip(&group.requests) {
                    *l = l.saturating_sub(need.saturating_mul(add));
                }
                if let Some(d) = demand.get_mut(&key(g, *c)) {
                    *d -= add as u32;
                }
            }
        }
        // An empty node or one missing a required affinity's partner: the greedy order
        // cannot reproduce this packing's cost with every rule, so the solver's stands.
        if counts.iter().all(|&n| n == 0) || !inst.rules.holds(&counts) || !super::solve::fits(inst, class, &counts) {
            return slots;
        }
        out.push((*c, counts));
    }
    if demand.values().any(|&d| d > 0) {
        return slots;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    out
}

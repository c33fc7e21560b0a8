//! Which placement targets (open NodeClaims, existing nodes) are known to reject a pod *shape*.
//!
//! Karpenter places pods one at a time, and each pod tries every open NodeClaim (every existing
//! node) in order. With thousands of NodeClaims that is quadratic: 10,000 GPU pods made ~25 M
//! `can_add` calls, almost all of them rejections by NodeClaims that were already full.
//!
//! For a pod without topology groups, whether a target accepts it is a pure function of the
//! target's state and of the pod's [`Shape`]: what the placement check reads from the pod. A
//! target's state only changes when a pod is committed to it. So once a target rejected a
//! shape, it keeps rejecting that shape until the next commit to it, and every pod of the same
//! shape (replicas of one Deployment, identical Jobs) can skip it. Skipping a target that
//! would reject anyway leaves "the first target in order that accepts" unchanged, so the
//! placements are identical to the full scan.
//!
//! Pods with topology groups are not memoised: their answer also depends on group counts,
//! which change with placements elsewhere.

use crate::fxhash::FxHashMap;
use crate::model::{HostPort, Pod};
use crate::requirements::Requirements;
use crate::resources::Resources;
use crate::taints::Toleration;
use std::collections::BTreeSet;

/// Everything a placement check without topology groups reads from the pod and its view.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape {
    full: Requirements,
    tolerations: Vec<Toleration>,
    requests: Resources,
    host_ports: Vec<HostPort>,
    /// Gated existing nodes refuse pods that already run somewhere (D-5.9).
    bound: bool,
}

impl Shape {
    pub fn of(pod: &Pod, view: &super::View) -> Shape {
        Shape {
            full: (*view.full).clone(),
            tolerations: view.tolerations.to_vec(),
            requests: pod.requests.clone(),
            host_ports: pod.host_ports.clone(),
            bound: pod.node_name.is_some(),
        }
    }
}

/// Shapes numbered in order of first sight, so the memos key on a `u32` and a pod's shape is
/// hashed once per placement instead of cloned and hashed by every memo lookup.
#[derive(Default)]
pub struct ShapeIds(FxHashMap<Shape, u32>);

impl ShapeIds {
    pub fn id(&mut self, shape: Shape) -> u32 {
        let next = self.0.len() as u32;
        *self.0.entry(shape).or_insert(next)
    }
}

/// Per shape, the targets not known to reject it, ordered as the scan visits them:
/// `(order, target)` where `order` is the target's sort key when it was inserted (the pod
/// count of a NodeClaim, 0 for existing nodes, which are visited by index).
#[derive(Default)]
struct Open {
    /// How much of [`RejectMemo::changed`] this shape has taken in.
    cursor: usize,
    targets: BTreeSet<(u32, u32)>,
}

/// Beyond this many remembered (shape, target) pairs the memo starts over: with very many
/// distinct shapes (every pod different) it would otherwise hold shapes × targets entries.
/// Forgetting is always safe; a forgotten shape just scans every target again.
const MAX_ENTRIES: usize = 4_000_000;

#[derive(Default)]
pub struct RejectMemo {
    /// Shape id (see [`ShapeIds`]) → index in `open`.
    shapes: FxHashMap<u32, usize>,
    open: Vec<Open>,
    /// Targets created or changed, in order (a target may appear many times).
    changed: Vec<u32>,
    entries: usize,
}

impl RejectMemo {
    /// Target `t` was created or a pod was committed to it.
    pub fn changed(&mut self, t: usize) {
        self.changed.push(t as u32);
    }

    /// Visit the targets that may accept `shape`, in `(order(t), t)` order, until `try_target`
    /// accepts one; return that target. Targets it rejects are remembered as rejecting.
    /// A shape met for the first time starts from `fresh()`: every target that is `alive`.
    /// `order(t)` must only change when `t` is reported through [`Self::changed`], and only
    /// grow; a target that is not `alive` rejects every pod and never comes back.
    pub fn first_accepting<I: IntoIterator<Item = u32>>(
        &mut self,
        shape: u32,
        fresh: impl FnOnce() -> I,
        order: impl Fn(usize) -> u32,
        alive: impl Fn(usize) -> bool,
        mut try_target: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        if self.entries > MAX_ENTRIES {
            self.shapes.clear();
            self.open.clear();
            self.entries = 0;
        }
        let next = self.open.len();
        let id = *self.shapes.entry(shape).or_insert(next);
        if id == next {
            let targets = fresh().into_iter().map(|t| (order(t as usize), t)).collect();
            self.open.push(Open { cursor: self.changed.len(), targets });
        }
        let open = &mut self.open[id];
        let before = open.targets.len();
        for &t in &self.changed[open.cursor..] {
            if alive(t as usize) {
                open.targets.insert((order(t as usize), t));
            }
        }
        open.cursor = self.changed.len();
        let mut found = None;
        while let Some(&(o, t)) = open.targets.first() {
            // An entry whose order moved on is stale: the target was changed since and has
            // been inserted again under its new order.
            if o == order(t as usize) && alive(t as usize) && try_target(t as usize) {
                found = Some(t as usize);
                break;
            }
            open.targets.pop_first();
        }
        self.entries = (self.entries + open.targets.len()).saturating_sub(before);
        found
    }
}

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
//! Pods with topology groups cannot be memoised by shape: their answer also depends on group
//! counts, which change with placements elsewhere. Their *resource* rejections can: whether a
//! target has room for a request vector depends only on the target's state. So a second memo,
//! keyed by the request vector alone ([`ShapeIds::requests`]), remembers only those
//! rejections ([`Verdict::Reject`]); a target that rejects for any other reason is passed over
//! but kept ([`Verdict::Skip`]). In Karpenter's benchmark mix three pods in five have topology
//! groups, and almost all of their tries (1.33 M of 1.35 M for 20,000 pods) were NodeClaims
//! without room for them.

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
pub struct ShapeIds {
    shapes: FxHashMap<Shape, u32>,
    requests: FxHashMap<(Resources, bool), u32>,
    /// (requests id, hostname groups) → id, see [`ShapeIds::with_hosts`].
    with_hosts: FxHashMap<(u32, HostGroups), u32>,
    /// Hostname groups → the id of their class (see [`Verdict::DeadForGroups`]).
    host_classes: FxHashMap<HostGroups, u32>,
    /// Per set of hostname groups, how many claim scans met it so far.
    host_uses: FxHashMap<HostGroups, u32>,
}

/// Hostname groups join the claim scan key once this many scans met them. A new key starts
/// from every open NodeClaim, which only pays when many pods share it: apps of tens of replicas
/// (one key per request vector and app) would rebuild the set for almost every pod, while one
/// label on thousands of anti-affinity pods (Karpenter's benchmark) turns a quadratic scan into
/// a linear one. The choice of key never changes an answer, only what the scan may skip.
const HOST_KEY_AFTER: u32 = 64;

/// A view's topology groups on the hostname key that can reject an open NodeClaim for good:
/// `(group, the group selects the pod)`, topology spread and anti-affinity only, in the view's
/// order. Affinity is left out: whether a hostname affinity group accepts a NodeClaim also
/// depends on whether any domain is populated yet, which placements elsewhere change.
pub type HostGroups = smallvec::SmallVec<[(u32, bool); 4]>;

impl ShapeIds {
    pub fn id(&mut self, shape: Shape) -> u32 {
        let next = self.shapes.len() as u32;
        *self.shapes.entry(shape).or_insert(next)
    }

    /// The id of a pod's request vector and whether it is bound (gated existing nodes refuse
    /// bound pods): all a resource rejection reads from the pod.
    pub fn requests(&mut self, pod: &Pod) -> u32 {
        let key = (pod.requests.clone(), pod.node_name.is_some());
        let next = self.requests.len() as u32;
        *self.requests.entry(key).or_insert(next)
    }

    /// The claim scan key of a pod with topology groups: its [`Self::requests`] id and its
    /// hostname groups. Pods with one key are rejected for good by the same NodeClaims: for
    /// lack of room (room only shrinks as pods are added) and by a hostname spread or
    /// anti-affinity group (a NodeClaim is its own hostname domain, and the group's count in
    /// it only grows).
    /// Returns the id and, when the hostname groups are part of it, the id of their class: the
    /// keys with the same hostname groups and any requests (before [`HOST_KEY_AFTER`] scans of
    /// the same groups they are not part of it, and the key is the requests').
    pub fn with_hosts(&mut self, requests: u32, mut hosts: HostGroups) -> (u32, Option<u32>) {
        if !hosts.is_empty() {
            let uses = self.host_uses.entry(hosts.clone()).or_insert(0);
            *uses = uses.saturating_add(1);
            if *uses < HOST_KEY_AFTER {
                hosts.clear();
            }
        }
        let class = (!hosts.is_empty()).then(|| {
            let next = self.host_classes.len() as u32;
            *self.host_classes.entry(hosts.clone()).or_insert(next)
        });
        let next = self.with_hosts.len() as u32;
        (*self.with_hosts.entry((requests, hosts)).or_insert(next), class)
    }
}

/// What a try of one target says, for the memo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Rejects every pod of this key until the target changes: forget the target for the key.
    Reject,
    /// Rejects this pod only: keep the target for the next pod of the key.
    Skip,
    /// Rejects every pod of this key for the rest of the pass, whatever is committed to the
    /// target later (see [`RejectMemo::first_accepting`]): the target is not even taken back
    /// when it changes, so a pass where every pod needs a NodeClaim of its own stays linear.
    Dead,
    /// [`Verdict::Dead`] for every key of the scan's class: the rejection reads nothing of the
    /// pod but its hostname groups (a hostname spread or anti-affinity group's count in the
    /// NodeClaim's own domain), so it holds whatever the requests. Karpenter's 20,000
    /// `app: nginx` anti-affinity pods have ~30 request vectors; each NodeClaim such a pod took
    /// was otherwise tried once per request vector (309,000 tries at 100,000 pods).
    DeadForGroups,
}

/// Per shape, the targets not known to reject it, ordered as the scan visits them:
/// `(order, target)` where `order` is the target's sort key when it was inserted (a NodeClaim's
/// place in Karpenter's order, see `inflight`; 0 for existing nodes, which are visited by index).
#[derive(Default)]
struct Open {
    /// How much of [`RejectMemo::changed`] this shape has taken in.
    cursor: usize,
    targets: BTreeSet<(u64, u32)>,
    /// Targets that answered [`Verdict::Dead`] (a bitset by target index).
    dead: Vec<u64>,
}

impl Open {
    fn is_dead(&self, t: u32) -> bool {
        self.dead.get(t as usize / 64).is_some_and(|w| w >> (t % 64) & 1 == 1)
    }

    fn kill(&mut self, t: u32) {
        let w = t as usize / 64;
        if self.dead.len() <= w {
            self.dead.resize(w + 1, 0);
        }
        self.dead[w] |= 1 << (t % 64);
    }
}

/// Beyond this many remembered (shape, target) pairs the memo starts over: with very many
/// distinct shapes (every pod different) it would otherwise hold shapes × targets entries.
/// Forgetting is always safe; a forgotten shape just scans every target again.
const MAX_ENTRIES: usize = 4_000_000;

/// A bitset of targets by index.
fn bit(set: &[u64], t: u32) -> bool {
    set.get(t as usize / 64).is_some_and(|w| w >> (t % 64) & 1 == 1)
}

fn set_bit(set: &mut Vec<u64>, t: u32) {
    let w = t as usize / 64;
    if set.len() <= w {
        set.resize(w + 1, 0);
    }
    set[w] |= 1 << (t % 64);
}

#[derive(Default)]
pub struct RejectMemo {
    /// Shape id (see [`ShapeIds`]) → index in `open`.
    shapes: FxHashMap<u32, usize>,
    open: Vec<Open>,
    /// Targets created or changed, in order (a target may appear many times).
    changed: Vec<u32>,
    entries: usize,
    /// Entries to drop after a scan (kept to reuse its allocation).
    dropped: Vec<(u64, u32)>,
    /// Targets found dead in a scan (same).
    killed: Vec<u32>,
    /// Per class (see [`Verdict::DeadForGroups`]), the targets dead for all its keys. Never
    /// reset: the verdict holds for the rest of the pass.
    class_dead: FxHashMap<u32, Vec<u64>>,
}

impl RejectMemo {
    /// Target `t` was created or a pod was committed to it.
    pub fn changed(&mut self, t: usize) {
        self.changed.push(t as u32);
    }

    /// `class`: the keys that share [`Verdict::DeadForGroups`] answers with `shape` (None: none).
    ///
    /// Visit the targets that may accept `shape`, in `(order(t), t)` order, until `try_target`
    /// accepts one; return that target. Targets it rejects ([`Verdict::Reject`]) are
    /// remembered as rejecting until they change; dead ones ([`Verdict::Dead`]) for good;
    /// skipped ones stay.
    /// A shape met for the first time starts from `fresh()`: every target that is `alive`.
    /// `order(t)` must only change when `t` is reported through [`Self::changed`] (entries
    /// under an old order are dropped as stale, the new one is inserted); a target that is not `alive` rejects every pod and never comes back.
    pub fn first_accepting<I: IntoIterator<Item = u32>>(
        &mut self,
        shape: u32,
        class: Option<u32>,
        fresh: impl FnOnce() -> I,
        order: impl Fn(usize) -> u64,
        alive: impl Fn(usize) -> bool,
        mut try_target: impl FnMut(usize) -> Verdict,
    ) -> Option<usize> {
        if self.entries > MAX_ENTRIES {
            self.shapes.clear();
            self.open.clear();
            self.entries = 0;
        }
        let mut class_dead = class.map(|c| std::mem::take(self.class_dead.entry(c).or_default()));
        let class_dead_at = |set: &Option<Vec<u64>>, t: u32| set.as_ref().is_some_and(|s| bit(s, t));
        let next = self.open.len();
        let id = *self.shapes.entry(shape).or_insert(next);
        if id == next {
            let targets = fresh().into_iter().filter(|&t| !class_dead_at(&class_dead, t)).map(|t| (order(t as usize), t)).collect();
            self.open.push(Open { cursor: self.changed.len(), targets, dead: Vec::new() });
        }
        let open = &mut self.open[id];
        let before = open.targets.len();
        for &t in &self.changed[open.cursor..] {
            if alive(t as usize) && !open.is_dead(t) && !class_dead_at(&class_dead, t) {
                open.targets.insert((order(t as usize), t));
            }
        }
        open.cursor = self.changed.len();
        let mut found = None;
        self.dropped.clear();
        for &(o, t) in &open.targets {
            // An entry whose order moved on is stale: the target was changed since and has
            // been inserted again under its new order.
            // Also dropped: targets another key of the class found dead since.
            if o != order(t as usize) || !alive(t as usize) || class_dead_at(&class_dead, t) {
                self.dropped.push((o, t));
                continue;
            }
            match try_target(t as usize) {
                Verdict::Accept => {
                    found = Some(t as usize);
                    break;
                }
                Verdict::Reject => self.dropped.push((o, t)),
                Verdict::Dead => {
                    self.dropped.push((o, t));
                    self.killed.push(t);
                }
                Verdict::DeadForGroups => {
                    self.dropped.push((o, t));
                    self.killed.push(t);
                    if let Some(set) = class_dead.as_mut() {
                        set_bit(set, t);
                    }
                }
                Verdict::Skip => {}
            }
        }
        for e in &self.dropped {
            open.targets.remove(e);
        }
        for &t in &self.killed {
            open.kill(t);
        }
        self.killed.clear();
        if let (Some(c), Some(set)) = (class, class_dead) {
            self.class_dead.insert(c, set);
        }
        self.entries = (self.entries + open.targets.len()).saturating_sub(before);
        found
    }
}

//! The order in which a pod tries the NodeClaims planned in this pass, as Karpenter has it.
//!
//! Karpenter keeps the new NodeClaims in one slice, appends each new one at the end, and
//! before every try of the open NodeClaims re-sorts the whole slice in place by pod count,
//! ascending, with Go's `sort.Slice` (`Scheduler.add` in `scheduling/scheduler.go`). NodeClaims
//! with the same pod count therefore stay in whatever order the previous sorts left them, and
//! above 12 elements `sort.Slice` is not stable: the order of ties is Go's, not creation order.
//!
//! Re-sorting everything for every pod would cost O(n log n) per pod. Between two sorts the
//! slice changes in one place only (one NodeClaim gained a pod, or one was appended with one
//! pod), and every sort leaves it sorted, on which Go's sort changes nothing. For such a
//! single change Go's first steps are predictable:
//! - at most 12 elements: insertion sort, which is stable;
//! - 50 or more: if the pivot sample finds nothing out of order (it looks at 9 fixed
//!   positions), the "partial insertion sort" repairs the one misplaced element in one step:
//!   a grown NodeClaim moves past its former equals, an appended one back past the larger
//!   ones, the rest keeping their order;
//! - a NodeClaim that was already last of its pod count, or an appended one when every
//!   NodeClaim has one pod, leaves the slice sorted.
//!
//! In all those cases the result is "move the changed NodeClaim to the front of its new pod
//! count (grown) or to the back of pod count 1 (appended)". Anything else (13–49 elements, or
//! a sample that saw the misplaced element) runs the full port of Go's sort (`gosort`).
//! `tests::incremental_equals_full_sort` checks the two against each other.
//!
//! Storage: per pod count a run of NodeClaims in slice order (both ends grow in O(1)); a
//! NodeClaim's rank in its run is `li - head` so ranks survive pushes at the front; the
//! open ("alive") NodeClaims are also kept in a `BTreeSet` by a sort key that is constant
//! between moves, so the scan never walks full ones.

use super::gosort::{self, Hint, SortData, MAX_INSERTION, SHORTEST_NINTHER};
use std::collections::{BTreeSet, VecDeque};

/// Run-local sequence numbers start here and grow both ways.
const MID: u32 = 1 << 31;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// The NodeClaim went from `from` pods to `from + 1`.
    Grew { claim: u32, from: u32 },
    /// A new NodeClaim with one pod was appended.
    Appended(u32),
}

#[derive(Debug, Default, Clone)]
pub struct InflightOrder {
    /// Per NodeClaim: its pod count as the slice order knows it.
    key: Vec<u32>,
    /// Per NodeClaim: logical index in its run (rank = `li - head[key]`).
    li: Vec<i64>,
    /// Per NodeClaim: the scan order key, `(pod count << 32) | sequence in run`.
    ord: Vec<u64>,
    alive: Vec<bool>,
    /// Per pod count: the NodeClaims with that count, in slice order.
    runs: Vec<VecDeque<u32>>,
    head: Vec<i64>,
    /// Per pod count: the lowest and highest sequence number given out in the run.
    seq_lo: Vec<u32>,
    seq_hi: Vec<u32>,
    /// `starts[k]`: slice position of the first NodeClaim with `k` pods (prefix sums of the run
    /// lengths; one entry more than `runs`).
    starts: Vec<usize>,
    /// Open NodeClaims by `ord`.
    open: BTreeSet<(u64, u32)>,
    /// The change since the last sort.
    pending: Option<Change>,
}

impl InflightOrder {
    /// A pod was committed to `claim`, which now has `pods` pods; `alive` says whether it can
    /// still take any pod of the pass. A new NodeClaim is reported with `pods == 1`.
    /// Must be followed by [`Self::settle`] before the next commit (Karpenter sorts before every
    /// try of the open NodeClaims, and a commit only follows such a try).
    pub fn committed(&mut self, claim: usize, pods: u32, alive: bool) {
        debug_assert!(self.pending.is_none(), "two changes without a sort in between");
        if claim == self.key.len() {
            debug_assert_eq!(pods, 1);
            self.key.push(0);
            self.li.push(0);
            self.ord.push(0);
            self.alive.push(alive);
            self.pending = Some(Change::Appended(claim as u32));
        } else {
            debug_assert_eq!(pods, self.key[claim] + 1);
            if self.alive[claim] && !alive {
                self.open.remove(&(self.ord[claim], claim as u32));
            }
            self.alive[claim] = alive;
            self.pending = Some(Change::Grew { claim: claim as u32, from: self.key[claim] });
        }
    }

    /// Apply Go's sort to the last change. NodeClaims that are open and whose scan key
    /// changed, other than the changed one, are pushed to `moved` (callers holding scan keys
    /// must refresh them).
    pub fn settle(&mut self, moved: &mut Vec<u32>) {
        let Some(change) = self.pending.take() else { return };
        let n = self.key.len();
        let sorted_after = match change {
            Change::Grew { claim, from } => self.rank(claim) + 1 == self.runs[from as usize].len(),
            Change::Appended(_) => self.starts.len() <= 3 || self.starts[2] == n - 1,
        };
        let predictable = sorted_after || n <= MAX_INSERTION || (n >= SHORTEST_NINTHER && self.pivot_sample_sorted(change, n));
        // The fast form is also the starting point of the slow path, which only fixes it up.
        let before = if predictable { None } else { Some(self.slice_before(change)) };
        self.apply_fast(change);
        if let Some(slice) = before {
            self.apply_full_sort(slice, moved);
        }
    }

    /// The open NodeClaims in slice order.
    pub fn open_in_order(&self) -> impl Iterator<Item = u32> + '_ {
        self.open.iter().map(|&(_, c)| c)
    }

    /// How many NodeClaims are open.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// A NodeClaim's scan key: ascending in slice order among the open ones.
    pub fn scan_key(&self, claim: usize) -> u64 {
        self.ord[claim]
    }

    /// The whole slice, as Karpenter's `newNodeClaims` is after its last sort (for tests and
    /// explanations; O(n)).
    pub fn slice(&self) -> Vec<u32> {
        self.runs.iter().flatten().copied().collect()
    }

    fn rank(&self, claim: u32) -> usize {
        let c = claim as usize;
        (self.li[c] - self.head[self.key[c] as usize]) as usize
    }

    /// The slice with the last change applied and not yet sorted.
    fn slice_before(&self, change: Change) -> Vec<u32> {
        let mut s = self.slice();
        if let Change::Appended(c) = change {
            s.push(c);
        }
        s
    }

    /// Go's pivot sample over the unsorted slice finds every pair in order, so its partial
    /// insertion sort repairs the single misplaced element (see the module comment).
    fn pivot_sample_sorted(&self, change: Change, n: usize) -> bool {
        let (pos, key) = match change {
            Change::Grew { claim, from } => (self.starts[from as usize] + self.rank(claim), from + 1),
            Change::Appended(_) => (n - 1, 1),
        };
        // Everything but `pos` is sorted and `pos` only compares as too large against what
        // follows it, so the sample can only see disorder if it looks at `pos`: it looks at the
        // quarter points and their neighbours. Deciding this without the probe saves two
        // binary searches per comparison on almost every pod.
        let quarter = n / 4;
        if ![quarter, 2 * quarter, 3 * quarter].iter().any(|&q| pos + 1 >= q && pos <= q + 1) {
            return true;
        }
        let mut keys = Probe { starts: &self.starts, pos, key };
        gosort::choose_pivot(&mut keys, 0, n).1 == Hint::Increasing
    }

    fn ensure_key(&mut self, k: usize) {
        while self.runs.len() <= k {
            self.runs.push(VecDeque::new());
            self.head.push(0);
            self.seq_lo.push(MID);
            self.seq_hi.push(MID - 1);
            let total = self.starts.last().copied().unwrap_or(0);
            if self.starts.is_empty() {
                self.starts.push(0);
            }
            self.starts.push(total);
        }
    }

    fn set_ord(&mut self, c: u32, key: u32, seq: u32) {
        let c_us = c as usize;
        self.key[c_us] = key;
        self.ord[c_us] = (u64::from(key) << 32) | u64::from(seq);
        if self.alive[c_us] {
            self.open.insert((self.ord[c_us], c));
        }
    }

    /// The change as the fast form: a grown NodeClaim to the front of its new run, a new one
    /// to the back of run 1.
    fn apply_fast(&mut self, change: Change) {
        match change {
            Change::Appended(c) => {
                self.ensure_key(1);
                let run = &mut self.runs[1];
                self.li[c as usize] = self.head[1] + run.len() as i64;
                run.push_back(c);
                for s in &mut self.starts[2..] {
                    *s += 1;
                }
                self.seq_hi[1] += 1;
                self.set_ord(c, 1, self.seq_hi[1]);
            }
            Change::Grew { claim: c, from } => {
                let (k, to) = (from as usize, from as usize + 1);
                self.ensure_key(to);
                self.open.remove(&(self.ord[c as usize], c));
                let r = self.rank(c);
                let run = &mut self.runs[k];
                // Close the gap from the shorter side; ranks are `li - head`.
                if r < run.len() - 1 - r {
                    for &t in run.range(..r) {
                        self.li[t as usize] += 1;
                    }
                    self.head[k] += 1;
                } else {
                    for &t in run.range(r + 1..) {
                        self.li[t as usize] -= 1;
                    }
                }
                run.remove(r);
                self.starts[to] -= 1;
                self.head[to] -= 1;
                self.li[c as usize] = self.head[to];
                self.runs[to].push_front(c);
                self.seq_lo[to] -= 1;
                self.set_ord(c, to as u32, self.seq_lo[to]);
            }
        }
    }

    /// Sort `slice` (the unsorted slice) with the port of Go's sort and make every run whose
    /// order differs from the fast form's match it.
    fn apply_full_sort(&mut self, mut slice: Vec<u32>, moved: &mut Vec<u32>) {
        let key = &self.key;
        gosort::sort_slice(&mut slice, |a, b| key[*a as usize] < key[*b as usize]);
        let mut at = 0;
        for k in 1..self.runs.len() {
            let len = self.runs[k].len();
            let segment = &slice[at..at + len];
            at += len;
            if self.runs[k].iter().eq(segment.iter()) {
                continue;
            }
            self.runs[k] = segment.iter().copied().collect();
            self.head[k] = 0;
            self.seq_lo[k] = MID;
            self.seq_hi[k] = MID + len as u32 - 1;
            for (rank, &c) in segment.iter().enumerate() {
                let old = self.ord[c as usize];
                self.open.remove(&(old, c));
                self.li[c as usize] = rank as i64;
                self.set_ord(c, k as u32, MID + rank as u32);
                if self.alive[c as usize] && self.ord[c as usize] != old {
                    moved.push(c);
                }
            }
        }
    }
}

/// The pod counts of the unsorted slice by position, for the pivot sample: the sorted runs
/// (`starts`) with one position (`pos`) holding `key`. Never swapped.
struct Probe<'a> {
    starts: &'a [usize],
    pos: usize,
    key: u32,
}

impl Probe<'_> {
    fn key_at(&self, i: usize) -> u32 {
        if i == self.pos {
            return self.key;
        }
        // The last run whose start is at or before `i`.
        (self.starts.partition_point(|&s| s <= i) - 1) as u32
    }
}

impl SortData for Probe<'_> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        self.key_at(i) < self.key_at(j)
    }
    fn swap(&mut self, _: usize, _: usize) {
        unreachable!("choose_pivot only compares")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Karpenter's slice, literally: append, bump a count, re-sort everything with Go's sort.
    struct Reference {
        slice: Vec<u32>,
        pods: Vec<u32>,
    }

    #[derive(Debug, Clone)]
    enum Op {
        New,
        /// A pod joins the open NodeClaim at this position of the open ones (mod their number).
        Join(usize),
        /// The NodeClaim at this position of the open ones is full after its next pod.
        JoinAndFill(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![3 => Just(Op::New), 6 => any::<usize>().prop_map(Op::Join), 1 => any::<usize>().prop_map(Op::JoinAndFill)]
    }

    /// Run `ops` through both and compare the slice and the open scan after every sort.
    fn check(ops: &[Op]) -> Result<(), TestCaseError> {
        let mut fast = InflightOrder::default();
        let mut reference = Reference { slice: Vec::new(), pods: Vec::new() };
        let mut alive: Vec<bool> = Vec::new();
        let mut moved = Vec::new();
        for op in ops {
            let open: Vec<u32> = fast.open_in_order().collect();
            let (claim, fills) = match *op {
                Op::New => (None, false),
                Op::Join(i) | Op::JoinAndFill(i) if !open.is_empty() => {
                    (Some(open[i % open.len()] as usize), matches!(op, Op::JoinAndFill(_)))
                }
                _ => (None, false),
            };
            match claim {
                None => {
                    let c = reference.pods.len();
                    reference.pods.push(1);
                    reference.slice.push(c as u32);
                    alive.push(true);
                    fast.committed(c, 1, true);
                }
                Some(c) => {
                    reference.pods[c] += 1;
                    alive[c] = !fills;
                    fast.committed(c, reference.pods[c], !fills);
                }
            }
            let pods = &reference.pods;
            gosort::sort_slice(&mut reference.slice, |a, b| pods[*a as usize] < pods[*b as usize]);
            moved.clear();
            fast.settle(&mut moved);
            prop_assert_eq!(fast.slice(), reference.slice.clone());
            let want_open: Vec<u32> = reference.slice.iter().copied().filter(|&c| alive[c as usize]).collect();
            prop_assert_eq!(fast.open_in_order().collect::<Vec<_>>(), want_open.clone());
            let keys: Vec<u64> = want_open.iter().map(|&c| fast.scan_key(c as usize)).collect();
            prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "scan keys not ascending");
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        #[test]
        fn incremental_equals_full_sort(ops in prop::collection::vec(op(), 1..260)) {
            check(&ops)?;
        }
    }

    /// Long runs (hundreds of NodeClaims) reach the ninther sample and its rare misses.
    #[test]
    fn incremental_equals_full_sort_long() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..6 {
            let mut ops = Vec::new();
            for _ in 0..3000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ops.push(match state % (10 + round) {
                    0..=2 => Op::New,
                    3 => Op::JoinAndFill((state >> 20) as usize),
                    // Mostly the first open ones, as the scan picks them.
                    _ => Op::Join((state >> 20) as usize % 4),
                });
            }
            check(&ops).unwrap();
        }
    }

    #[test]
    fn ties_follow_go_not_creation() {
        // 13 NodeClaims with one pod, then the last one gets a second pod and one more is
        // created: Go's sort of 14 elements reorders the one-pod ties.
        let mut o = InflightOrder::default();
        let mut moved = Vec::new();
        for c in 0..13 {
            o.committed(c, 1, true);
            o.settle(&mut moved);
        }
        assert_eq!(o.slice(), (0..13).collect::<Vec<_>>(), "all equal: nothing moves");
        o.committed(0, 2, true);
        o.settle(&mut moved);
        let mut want: Vec<u32> = (0..13).collect();
        let pods = |c: u32| if c == 0 { 2 } else { 1 };
        gosort::sort_slice(&mut want, |a, b| pods(*a) < pods(*b));
        assert_eq!(o.slice(), want);
        assert_ne!(&want[..12], &(1..13).collect::<Vec<_>>()[..], "Go's order of the ties is not creation order");
    }
}

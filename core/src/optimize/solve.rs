//! The solver: a lower bound from the LP relaxation of the assignment formulation, packing
//! patterns per node class, and an integer program over the patterns (good_lp: HiGHS natively
//! with the `highs` feature, microlp otherwise — wasm included).
//!
//! Covering rows (`≥ count`) make maximal patterns enough: a pattern's subset costs the same.
//! When every maximal pattern of every class can be listed (small inputs), the integer program
//! over them is the whole problem and its optimum is proven; otherwise patterns come from
//! the LP solution and greedy fills, and the answer carries the gap to the LP bound.

use super::instance::{Class, Instance};
use crate::labels::ValueId;
use good_lp::{constraint, variable, Constraint, Expression, ProblemVariables, ResolutionError, Solution, SolverModel, Variable};
use std::collections::BTreeMap;

/// A node's contents: a class and a count per group.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    /// Index of the instance class (NodePool, type, capacity type, zone) the node is.
    pub class: usize,
    /// Pods of each group on the node, indexed like the instance's groups.
    pub counts: Vec<u32>,
}

/// One class's share of the LP solution: its nodes y_c and the pods z_gc of each group on them.
pub type ClassShare = (f64, Vec<f64>);

/// The integer program's answer: (pattern, nodes of it), cost, proven optimal, timed out, and
/// the pods of each zoned group per zone.
pub type Integral = (Vec<(Pattern, u32)>, f64, bool, bool, Quota);

/// Pods of a group (with zone rules) per zone: how `output::assign` fills the patterns.
pub type Quota = BTreeMap<(usize, ValueId), u32>;

/// Work and time limits.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Most patterns listed exhaustively before falling back to generated ones.
    pub enumerate_limit: usize,
    /// Wall-clock limit of the whole `optimize` call (seconds). With a clock lent to the core
    /// (`interrupt::with_clock`: the CLI, Python and wasm lend one) every phase reads what is
    /// left of it: each solver call gets at most that ([`Budget::left`]), and the pattern
    /// listing stops when it is gone. Without a clock the solver calls split it statically, so
    /// their limits still add up to at most `seconds` (the LP relaxation [`LP_SHARE`], the
    /// integer program the rest; half of all that for the whole plan's bound when it is needed).
    pub seconds: f64,
    /// The lent clock's reading when the call started (`None` without a clock).
    pub started: Option<f64>,
}

impl Budget {
    /// A budget of `seconds` starting now (by the lent clock, if any).
    pub fn new(seconds: f64, enumerate_limit: usize) -> Budget {
        Budget { enumerate_limit, seconds, started: crate::interrupt::seconds() }
    }

    /// Seconds left: the budget less the time since it started by the lent clock; without a
    /// clock, the whole of it (the callers' static shares bound the sum then).
    pub fn left(&self) -> f64 {
        match (self.started, crate::interrupt::seconds()) {
            (Some(start), Some(now)) => (self.seconds - (now - start)).max(0.0),
            _ => self.seconds,
        }
    }

    /// A budget of `share` of what is left, starting now: a phase's part of the call.
    pub fn part(&self, share: f64) -> Budget {
        Budget { enumerate_limit: self.enumerate_limit, seconds: self.left() * share, started: crate::interrupt::seconds() }
    }

    /// What is left once a phase given `part(share)` has run: by the clock what is left then;
    /// without one, the rest of the static split (`1 - share` of this budget).
    pub fn after(&self, share: f64) -> Budget {
        match self.started {
            Some(_) => self.part(1.0),
            None => Budget { enumerate_limit: self.enumerate_limit, seconds: self.seconds * (1.0 - share), started: None },
        }
    }

    /// The time is gone (only ever true with a lent clock).
    pub fn spent(&self) -> bool {
        self.left() <= 0.0
    }
}

/// The least a solver call is given (seconds): a call with no time at all gives no answer, and
/// Karpenter's plan would then be answered instead of the best packing found this quickly.
const LEAST_CALL: f64 = 0.001;

/// The share of a budget the integer program leaves, by the clock, to the phases after it
/// (pods dealt out to nodes, the pod-by-pod check, the answer): they are linear in the pods
/// but not free at 10,000 pods.
pub const AFTER_SHARE: f64 = 0.05;

/// The LP relaxation's share of [`Budget::seconds`] (it is the quick one; the integer program
/// over the patterns is what runs to its limit on large inputs).
pub const LP_SHARE: f64 = 0.25;

/// What the solver found: the nodes to launch, their cost and how good the answer is proven to be.
pub struct Outcome {
    /// (pattern, how many nodes of it).
    pub chosen: Vec<(Pattern, u32)>,
    /// $/h of `chosen`.
    pub cost: f64,
    /// No packing costs less, $/h: the LP relaxation's bound (the cost itself when proven).
    pub lower_bound: f64,
    /// Every pattern was listed and the integer solver proved its optimum.
    pub proven: bool,
    /// The integer solver stopped at the time limit.
    pub timed_out: bool,
    /// How many patterns the integer program chose among.
    pub patterns: usize,
    /// Pods of each zoned group per zone (empty without zone rules, and for Karpenter's own
    /// plan, whose patterns hold exactly its pods).
    pub quota: Quota,
    /// Set when the solver gave no packing (it failed, or its time ran out before it found
    /// one) and `chosen` is Karpenter's own plan instead: always feasible, so `optimize` still
    /// answers, marked as such. Holds the solver's reason.
    pub karpenter_plan: Option<String>,
}

/// Solve and read `read`'s values, in that order.
fn run(
    vars: ProblemVariables,
    objective: Expression,
    rows: Vec<Constraint>,
    seconds: f64,
    read: &[Variable],
) -> Result<(Vec<f64>, bool, bool), ResolutionError> {
    #[cfg(all(test, feature = "highs"))]
    if backend::MICROLP.with(std::cell::Cell::get) {
        return run_microlp(vars, objective, rows, seconds, read);
    }
    #[cfg(feature = "highs")]
    {
        let model = vars.minimise(objective).using(good_lp::highs).set_threads(1).set_time_limit(seconds.max(LEAST_CALL));
        let model = model.set_mip_rel_gap(1e-7).map_err(|e| ResolutionError::Str(e.to_string()))?;
        Ok(values_of(model.with_all(rows).solve()?, read))
    }
    #[cfg(not(feature = "highs"))]
    run_microlp(vars, objective, rows, seconds, read)
}

/// The pure-Rust backend: the only one without the `highs` feature (wasm included); with it,
/// only the tests call it, to check that both backends give the same answers.
#[cfg(any(test, not(feature = "highs")))]
fn run_microlp(
    vars: ProblemVariables,
    objective: Expression,
    rows: Vec<Constraint>,
    seconds: f64,
    read: &[Variable],
) -> Result<(Vec<f64>, bool, bool), ResolutionError> {
    use good_lp::{WithMipGap, WithTimeLimit};
    let model = vars.minimise(objective).using(good_lp::microlp).with_time_limit(seconds.max(LEAST_CALL));
    let model = model.with_mip_gap(1e-7).map_err(|e| ResolutionError::Str(e.to_string()))?;
    Ok(values_of(model.with_all(rows).solve()?, read))
}

/// `read`'s values, whether the solver proved its optimum, whether it stopped at its time limit.
fn values_of(solution: impl Solution, read: &[Variable]) -> (Vec<f64>, bool, bool) {
    let status = solution.status();
    let values = read.iter().map(|&v| solution.value(v)).collect();
    // GapLimit: optimal within the relative MIP gap of 1e-7 set above (microlp reports this status
    // whenever it stops on the gap tolerance; a 1e-7 relative gap is below any price's precision).
    let optimal = matches!(status, good_lp::SolutionStatus::Optimal | good_lp::SolutionStatus::GapLimit);
    (values, optimal, matches!(status, good_lp::SolutionStatus::TimeLimit))
}

/// Which backend the tests' solver calls use when HiGHS is compiled in: optimize's tests run
/// every case through both and compare the answers' bytes (`optimize::tests::solved`).
#[cfg(all(test, feature = "highs"))]
pub(crate) mod backend {
    use std::cell::Cell;

    thread_local! {
        /// Set: this thread's solver calls use microlp instead of HiGHS.
        pub(crate) static MICROLP: Cell<bool> = const { Cell::new(false) };
    }

    /// `f` with this thread's solver calls on microlp.
    pub(crate) fn with_microlp<T>(f: impl FnOnce() -> T) -> T {
        MICROLP.with(|m| m.set(true));
        let out = f();
        MICROLP.with(|m| m.set(false));
        out
    }
}

/// The LP relaxation of "open y_c nodes of class c, put z_gc pods of group g on them": pods
/// are covered, each class's rows hold per resource, no node holds more of a group than fits
/// alone on it (a valid integer cut that makes the bound count whole GPUs), limits hold.
/// Returns the bound and, per class, (y_c, z_·c) for the pattern heuristic.
pub fn lp_bound(inst: &Instance, seconds: f64) -> Result<(f64, Vec<ClassShare>), ResolutionError> {
    let mut vars = ProblemVariables::new();
    let nc = inst.classes.len();
    let ng = inst.groups.len();
    let y: Vec<Variable> = (0..nc).map(|_| vars.add(variable().min(0.0))).collect();
    let mut z: Vec<Vec<Option<Variable>>> = vec![vec![None; ng]; nc];
    let mut rows = Vec::new();
    let mut cover: Vec<Expression> = vec![Expression::from(0.0); ng];
    for (c, class) in inst.classes.iter().enumerate() {
        for (g, group) in inst.groups.iter().enumerate() {
            let most = class.max_of(g, group);
            if !class.admits[g] || most == 0 {
                continue;
            }
            let v = vars.add(variable().min(0.0));
            z[c][g] = Some(v);
            cover[g] += v;
            rows.push(constraint!(v - (most as f64) * y[c] <= 0.0));
        }
        for r in 0..inst.dims {
            let room = class.room[r];
            if room == i64::MAX || room <= 0 {
                continue;
            }
            let mut used = Expression::from(0.0);
            let mut any = false;
            for (g, group) in inst.groups.iter().enumerate() {
                if let (Some(v), need) = (z[c][g], group.requests[r]) {
                    if need > 0 {
                        used += (need as f64 / room as f64) * v;
                        any = true;
                    }
                }
            }
            if any {
                rows.push(constraint!(used - y[c] <= 0.0));
            }
        }
    }
    for (g, group) in inst.groups.iter().enumerate() {
        rows.push(constraint!(cover[g].clone() >= group.count() as f64));
    }
    if !inst.rules.zones.is_empty() {
        // Pods of each zoned group per zone: the sum over that zone's classes.
        let mut a: BTreeMap<(usize, ValueId), Expression> = BTreeMap::new();
        for (c, class) in inst.classes.iter().enumerate() {
            for (g, v) in z[c].iter().enumerate() {
                if let (Some(v), true) = (v, inst.rules.zones.zoned(g)) {
                    *a.entry((g, class.zone)).or_insert_with(|| Expression::from(0.0)) += *v;
                }
            }
        }
        rows.extend(super::zones::rows(&inst.rules.zones, &inst.groups, &mut vars, &a, false));
    }
    for (l, limit) in inst.limits.iter().enumerate() {
        let mut used = Expression::from(0.0);
        for (c, class) in inst.classes.iter().enumerate() {
            if class.limit_use[l] != 0 {
                used += class.limit_use[l] as f64 / scale(inst, l) * y[c];
            }
        }
        rows.push(constraint!(used <= limit.remaining as f64 / scale(inst, l)));
    }
    let objective: Expression = inst.classes.iter().zip(&y).map(|(c, &v)| c.price * v).sum();
    let mut read = y.clone();
    read.extend(z.iter().flatten().flatten().copied());
    let (values, optimal, _) = run(vars, objective, rows, seconds, &read)?;
    let mut bound = 0.0;
    let mut per_class = Vec::with_capacity(nc);
    let mut next = nc;
    for (c, class) in inst.classes.iter().enumerate() {
        let yv = values[c].max(0.0);
        bound += class.price * yv;
        let zs = (0..ng)
            .map(|g| {
                z[c][g].map_or(0.0, |_| {
                    next += 1;
                    values[next - 1].max(0.0)
                })
            })
            .collect();
        per_class.push((yv, zs));
    }
    // A relaxation stopped before its optimum (its time ran out) proves no bound: the cost of
    // the point it stopped at may lie above the optimum. Nothing cheaper than 0 is all it says.
    if !optimal {
        bound = 0.0;
    }
    Ok((bound, per_class))
}

/// The power of ten limit row `l` is divided by: quantities are in thousandths, so a memory
/// limit's coefficients (bytes × 1000 per node) reach 10^15 on large types, which HiGHS refuses
/// as infinite ("error while building model"); scaled, the largest is at most 10^9. A row
/// divided by a positive number holds the same integer points, and `check` verifies the limits
/// in integers afterwards.
fn scale(inst: &Instance, l: usize) -> f64 {
    let most = inst.classes.iter().map(|c| c.limit_use[l].unsigned_abs()).max().unwrap_or(0);
    let mut s = 1.0;
    while most as f64 / s > 1e9 {
        s *= 10.0;
    }
    s
}

/// Fill the room left by `counts` with more pods, groups in the given order.
fn greedy_fill(inst: &Instance, class: &Class, counts: &mut [u32], order: &[usize]) {
    let mut left: Vec<i64> = class.room.clone();
    for (g, &n) in counts.iter().enumerate() {
        for (l, need) in left.iter_mut().zip(&inst.groups[g].requests) {
            *l = l.saturating_sub(need.saturating_mul(n as i64));
        }
    }
    for &g in order {
        let group = &inst.groups[g];
        if !class.admits[g] {
            continue;
        }
        let cap = group.per_node.min(group.count()).saturating_sub(counts[g]);
        let mut add = cap as i64;
        for (l, need) in left.iter().zip(&group.requests) {
            if *need > 0 {
                add = add.min(l / need);
            }
        }
        // The hostname rules are downward closed: the most that keeps them is found by
        // stepping down (a node holds at most a few hundred pods).
        let before = counts[g];
        while add > 0 {
            counts[g] = before + add as u32;
            if inst.rules.allows(counts) && inst.flex_ok(class, counts) {
                break;
            }
            add -= 1;
        }
        counts[g] = before;
        if add > 0 {
            counts[g] += add as u32;
            for (l, need) in left.iter_mut().zip(&group.requests) {
                *l = l.saturating_sub(need.saturating_mul(add));
            }
        }
    }
}

/// Search nodes the listing may visit per pattern it may list: the search also walks the
/// non-maximal fillings between maximal ones, and with many small groups on a large node those
/// outnumber the maximal ones without bound (300 NodePools x 50 shapes ran for minutes listing
/// fewer patterns than the limit). Past `limit` x this, the listing gives up as it does past
/// `limit` patterns, and the solver works from generated patterns with its gap to the bound.
const STEPS_PER_PATTERN: usize = 64;

/// Search steps between two readings of the clock while listing patterns.
const STEPS_PER_CLOCK_READING: usize = 4096;

/// Every maximal pattern of every class, or None past `limit` patterns (or past
/// `limit` x [`STEPS_PER_PATTERN`] search steps, or when the budget's time is gone).
pub fn enumerate(inst: &Instance, limit: usize, budget: &Budget) -> Option<Vec<Pattern>> {
    if budget.spent() {
        return None;
    }
    let mut out = Vec::new();
    let mut steps = Steps { left: limit.saturating_mul(STEPS_PER_PATTERN), budget };
    for (c, class) in inst.classes.iter().enumerate() {
        let admitted: Vec<usize> = (0..inst.groups.len()).filter(|&g| class.admits[g] && class.max_of(g, &inst.groups[g]) > 0).collect();
        let mut counts = vec![0u32; inst.groups.len()];
        let mut left = class.room.clone();
        if !dfs(inst, c, &admitted, 0, &mut counts, &mut left, &mut out, limit, &mut steps) {
            return None;
        }
    }
    Some(out)
}

/// The listing's allowance: search steps left, and the time budget read every
/// [`STEPS_PER_CLOCK_READING`] steps.
struct Steps<'a> {
    left: usize,
    budget: &'a Budget,
}

impl Steps<'_> {
    /// One more step, if the allowance has it.
    fn take(&mut self) -> bool {
        if self.left == 0 || (self.left.is_multiple_of(STEPS_PER_CLOCK_READING) && self.budget.spent()) {
            return false;
        }
        self.left -= 1;
        true
    }
}

#[allow(clippy::too_many_arguments)]
fn dfs(
    inst: &Instance,
    c: usize,
    admitted: &[usize],
    i: usize,
    counts: &mut Vec<u32>,
    left: &mut [i64],
    out: &mut Vec<Pattern>,
    limit: usize,
    steps: &mut Steps,
) -> bool {
    if !steps.take() {
        return false;
    }
    if i == admitted.len() {
        // Maximal: no admitted group with pods to spare still fits. Groups a required
        // affinity counts are covered exactly, so every count of theirs is listed; for the
        // others a maximal pattern stands for its subsets (dropping one of their pods keeps
        // every rule, the affinities included, since no affinity counts them).
        let maximal = admitted.iter().all(|&g| {
            let group = &inst.groups[g];
            inst.rules.is_exact(g)
                || counts[g] >= group.per_node.min(group.count())
                || group.requests.iter().zip(left.iter()).any(|(need, l)| need > l)
                || {
                    counts[g] += 1;
                    let blocked = !inst.rules.holds(counts) || !inst.flex_ok(&inst.classes[c], counts);
                    counts[g] -= 1;
                    blocked
                }
        });
        if maximal && counts.iter().any(|&n| n > 0) && inst.rules.holds(counts) {
            if out.len() >= limit {
                return false;
            }
            out.push(Pattern { class: c, counts: counts.clone() });
        }
        return true;
    }
    let g = admitted[i];
    let group = &inst.groups[g];
    let mut most = group.per_node.min(group.count()) as i64;
    for (need, l) in group.requests.iter().zip(left.iter()) {
        if *need > 0 {
            most = most.min(l / need);
        }
    }
    for n in (0..=most.max(0)).rev() {
        counts[g] = n as u32;
        // The groups after `i` are still 0, and the rules are downward closed (minValues
        // too): a partial pattern that breaks one cannot be completed.
        if n > 0 && !(inst.rules.allows(counts) && inst.flex_ok(&inst.classes[c], counts)) {
            continue;
        }
        for (l, need) in left.iter_mut().zip(&group.requests) {
            *l -= need * n;
        }
        let ok = dfs(inst, c, admitted, i + 1, counts, left, out, limit, steps);
        for (l, need) in left.iter_mut().zip(&group.requests) {
            *l += need * n;
        }
        if !ok {
            counts[g] = 0;
            return false;
        }
    }
    counts[g] = 0;
    true
}

/// The groups biggest pods first (by their largest share of any class's room), then by index:
/// the order greedy fills take them in.
pub fn size_order(inst: &Instance) -> Vec<usize> {
    let weight = |g: usize| -> f64 {
        inst.classes
            .iter()
            .filter(|c| c.admits[g])
            .map(|c| {
                inst.groups[g]
                    .requests
                    .iter()
                    .zip(&c.room)
                    .map(|(n, r)| if *r > 0 && *r != i64::MAX { *n as f64 / *r as f64 } else { 0.0 })
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max)
    };
    let weights: Vec<f64> = (0..inst.groups.len()).map(weight).collect();
    let mut order: Vec<usize> = (0..inst.groups.len()).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
    order
}

/// Patterns from the LP solution (its per-node mix rounded down, then filled) and, per class
/// and group, the group alone then filled: a few per class, enough for near-optimal packings
/// of many identical pods.
pub fn generated(inst: &Instance, lp: &[ClassShare]) -> Vec<Pattern> {
    let ng = inst.groups.len();
    let order = size_order(inst);
    let mut out = Vec::new();
    for (c, class) in inst.classes.iter().enumerate() {
        if let Some((y, zs)) = lp.get(c) {
            if *y > 1e-9 {
                let mut counts: Vec<u32> =
                    zs.iter().enumerate().map(|(g, z)| ((z / y + 1e-9).floor() as u32).min(class.max_of(g, &inst.groups[g]))).collect();
                if fits(inst, class, &counts) {
                    greedy_fill(inst, class, &mut counts, &order);
                    out.push(Pattern { class: c, counts });
                }
            }
        }
        for g in 0..ng {
            if class.max_of(g, &inst.groups[g]) == 0 {
                continue;
            }
            let mut counts = vec![0u32; ng];
            counts[g] = class.max_of(g, &inst.groups[g]);
            let mut rest: Vec<usize> = order.iter().copied().filter(|&h| h != g).collect();
            rest.insert(0, g);
            greedy_fill(inst, class, &mut counts, &rest);
            out.push(Pattern { class: c, counts });
        }
    }
    // A fill may leave a required affinity unmet (the group alone, or without its partners).
    out.retain(|p| inst.rules.holds(&p.counts) && inst.flex_ok(&inst.classes[p.class], &p.counts));
    out
}

/// True when `counts` pods of each group fit one node of `class` in every resource dimension
/// and keep the hostname rules.
pub fn fits(inst: &Instance, class: &Class, counts: &[u32]) -> bool {
    (0..inst.dims).all(|r| {
        let used: i128 = counts.iter().enumerate().map(|(g, &n)| inst.groups[g].requests[r] as i128 * n as i128).sum();
        used <= class.room[r] as i128
    }) && counts.iter().enumerate().all(|(g, &n)| n == 0 || (class.admits[g] && n <= inst.groups[g].per_node))
        && inst.rules.holds(counts)
        && inst.flex_ok(class, counts)
}

/// The integer program over `patterns`: cover every group, respect limits, least cost.
pub fn integer(inst: &Instance, patterns: &[Pattern], seconds: f64) -> Result<Integral, ResolutionError> {
    let mut vars = ProblemVariables::new();
    let total: u32 = inst.groups.iter().map(|g| g.count()).sum();
    let x: Vec<Variable> = patterns.iter().map(|_| vars.add(variable().integer().min(0).max(total as f64))).collect();
    let mut rows = Vec::new();
    for (g, group) in inst.groups.iter().enumerate() {
        let cover: Expression = patterns.iter().zip(&x).filter(|(p, _)| p.counts[g] > 0).map(|(p, &v)| p.counts[g] as f64 * v).sum();
        // Groups a required affinity counts are covered exactly: a surplus pod dropped from a
        // node could be the one an affinity there relies on.
        if inst.rules.is_exact(g) {
            rows.push(constraint!(cover == group.count() as f64));
        } else {
            rows.push(constraint!(cover >= group.count() as f64));
        }
    }
    for (l, limit) in inst.limits.iter().enumerate() {
        let used: Expression = patterns
            .iter()
            .zip(&x)
            .filter(|(p, _)| inst.classes[p.class].limit_use[l] != 0)
            .map(|(p, &v)| inst.classes[p.class].limit_use[l] as f64 / scale(inst, l) * v)
            .sum();
        rows.push(constraint!(used <= limit.remaining as f64 / scale(inst, l)));
    }
    // Zone rules: the pods each zoned group puts in each zone (within the room its patterns
    // there open), and the zone rows over them.
    let mut a: BTreeMap<(usize, ValueId), Expression> = BTreeMap::new();
    let mut quota_vars: Vec<((usize, ValueId), Variable)> = Vec::new();
    if !inst.rules.zones.is_empty() {
        let mut room: BTreeMap<(usize, ValueId), Expression> = BTreeMap::new();
        for (p, &v) in patterns.iter().zip(&x) {
            for (g, &n) in p.counts.iter().enumerate() {
                if n > 0 && inst.rules.zones.zoned(g) {
                    *room.entry((g, inst.classes[p.class].zone)).or_insert_with(|| Expression::from(0.0)) += n as f64 * v;
                }
            }
        }
        let mut sum: BTreeMap<usize, Expression> = BTreeMap::new();
        for (key, cap) in room {
            let count = inst.groups[key.0].count() as f64;
            let v = vars.add(variable().integer().min(0).max(count));
            rows.push(constraint!(v - cap <= 0.0));
            *sum.entry(key.0).or_insert_with(|| Expression::from(0.0)) += v;
            a.insert(key, Expression::from(v));
            quota_vars.push((key, v));
        }
        for g in (0..inst.groups.len()).filter(|&g| inst.rules.zones.zoned(g)) {
            let total = sum.remove(&g).unwrap_or_else(|| Expression::from(0.0));
            rows.push(constraint!(total == inst.groups[g].count() as f64));
        }
        rows.extend(super::zones::rows(&inst.rules.zones, &inst.groups, &mut vars, &a, true));
    }
    let objective: Expression = patterns.iter().zip(&x).map(|(p, &v)| inst.classes[p.class].price * v).sum();
    let mut read = x.clone();
    read.extend(quota_vars.iter().map(|(_, v)| *v));
    let (values, optimal, timed_out) = run(vars, objective, rows, seconds, &read)?;
    let quota: Quota = quota_vars.iter().zip(&values[x.len()..]).map(|((key, _), v)| (*key, v.round().max(0.0) as u32)).collect();
    let values = &values[..x.len()];
    let mut chosen = Vec::new();
    let mut cost = 0.0;
    for (p, v) in patterns.iter().zip(values) {
        let n = v.round().max(0.0) as u32;
        if n > 0 {
            cost += inst.classes[p.class].price * n as f64;
            chosen.push((p.clone(), n));
        }
    }
    Ok((chosen, cost, optimal, timed_out, quota))
}

/// Solve: bound, patterns (all of them when few enough), integer program. `seed` patterns
/// (Karpenter's own NodeClaims) guarantee the answer is never worse than Karpenter's.
pub fn solve(inst: &Instance, seed: Vec<Pattern>, budget: Budget) -> Result<Outcome, ResolutionError> {
    if inst.groups.is_empty() {
        return Ok(Outcome {
            chosen: Vec::new(),
            cost: 0.0,
            lower_bound: 0.0,
            proven: true,
            timed_out: false,
            patterns: 0,
            quota: Quota::new(),
            karpenter_plan: None,
        });
    }
    let karpenter = seed.clone();
    solve_patterns(inst, seed, budget).or_else(|e| karpenter_packing(inst, &karpenter, None, e.to_string()))
}

/// Karpenter's own claims (`seed`, one pattern per claim) as the answer when the solver has
/// none: feasible by construction when they cover every group; otherwise the solver's error.
fn karpenter_packing(inst: &Instance, seed: &[Pattern], bound: Option<f64>, reason: String) -> Result<Outcome, ResolutionError> {
    let covered = (0..inst.groups.len()).all(|g| seed.iter().map(|p| p.counts[g]).sum::<u32>() >= inst.groups[g].count());
    if !covered {
        return Err(ResolutionError::Str(reason));
    }
    let mut sorted = seed.to_vec();
    sorted.sort();
    let mut chosen: Vec<(Pattern, u32)> = Vec::new();
    for p in sorted {
        match chosen.last_mut() {
            Some((q, n)) if *q == p => *n += 1,
            _ => chosen.push((p, 1)),
        }
    }
    let cost: f64 = chosen.iter().map(|(p, n)| inst.classes[p.class].price * *n as f64).sum();
    let lower_bound = bound.unwrap_or(0.0).min(cost);
    let quota = Quota::new();
    Ok(Outcome { chosen, cost, lower_bound, proven: false, timed_out: true, patterns: seed.len(), quota, karpenter_plan: Some(reason) })
}

fn solve_patterns(inst: &Instance, seed: Vec<Pattern>, budget: Budget) -> Result<Outcome, ResolutionError> {
    let karpenter = seed.clone();
    let (bound, lp) = lp_bound(inst, budget.left().min(budget.seconds * LP_SHARE))?;
    let listed = enumerate(inst, budget.enumerate_limit, &budget);
    let complete = listed.is_some();
    let mut patterns = listed.unwrap_or_default();
    patterns.extend(seed);
    patterns.extend(generated(inst, &lp));
    patterns.sort();
    patterns.dedup();
    // By the clock, what the LP and the listing left less the reserve for the phases after the
    // solve; without one, the static share.
    let seconds = match budget.started {
        Some(_) => (budget.left() - budget.seconds * AFTER_SHARE).max(0.0),
        None => budget.seconds * (1.0 - LP_SHARE),
    };
    let (chosen, cost, optimal, timed_out, quota) = match integer(inst, &patterns, seconds) {
        Ok(r) => r,
        // The LP bound is known: Karpenter's plan is answered with its gap to it.
        Err(e) => return karpenter_packing(inst, &karpenter, Some(bound), e.to_string()),
    };
    let proven = complete && optimal;
    let lower_bound = if proven { cost } else { bound.min(cost) };
    // The listing stopped for time, or the LP did (its bound is then 0): the budget ran out
    // even when the integer program itself ended within what was left.
    let timed_out = timed_out || (!proven && budget.spent());
    Ok(Outcome { chosen, cost, lower_bound, proven, timed_out, patterns: patterns.len(), quota, karpenter_plan: None })
}

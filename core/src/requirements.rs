//! The requirement algebra (spec §2): one requirement per label key, as an allowed value set
//! (concrete or complemented) with optional inclusive integer bounds and `minValues`.
//!
//! Value sets are sorted small vectors of interned value ids: the sets met in practice are tiny
//! (a handful of zones, GPU names, capacity types) except instance-type lists, and sorted-merge
//! intersection over ids is as fast as a bitset for those sizes without needing a fixed universe.

use crate::labels::{Interner, KeyId, ValueId};
use smallvec::SmallVec;
use std::fmt::Write as _;

pub type Values = SmallVec<[ValueId; 4]>;

/// Operators as users write them (Gte/Lte exist only in NodePools, R2.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
    Gte,
    Lte,
}

impl Operator {
    pub fn parse(s: &str) -> Option<Operator> {
        Some(match s {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            "Gt" => Operator::Gt,
            "Lt" => Operator::Lt,
            "Gte" => Operator::Gte,
            "Lte" => Operator::Lte,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Operator::In => "In",
            Operator::NotIn => "NotIn",
            Operator::Exists => "Exists",
            Operator::DoesNotExist => "DoesNotExist",
            Operator::Gt => "Gt",
            Operator::Lt => "Lt",
            Operator::Gte => "Gte",
            Operator::Lte => "Lte",
        }
    }
}

/// One key's requirement (R2.1.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// false: allowed = `values`; true: allowed = everything except `values`.
    pub complement: bool,
    /// Sorted, unique.
    pub values: Values,
    pub gte: Option<i64>,
    pub lte: Option<i64>,
    pub min_values: Option<u32>,
}

impl Requirement {
    pub fn in_values(values: impl IntoIterator<Item = ValueId>) -> Self {
        let mut v: Values = values.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        Requirement { complement: false, values: v, gte: None, lte: None, min_values: None }
    }

    pub fn exists() -> Self {
        Requirement { complement: true, values: Values::new(), gte: None, lte: None, min_values: None }
    }

    pub fn does_not_exist() -> Self {
        Requirement { complement: false, values: Values::new(), gte: None, lte: None, min_values: None }
    }

    /// Build from an operator (R2.2). Integer operands that fail to parse count as 0; callers
    /// validate first and report such input as an error.
    pub fn from_operator(op: Operator, values: &[ValueId], interner: &Interner) -> Self {
        let bound = || values.first().and_then(|v| interner.int(*v)).unwrap_or(0);
        match op {
            Operator::In => Self::in_values(values.iter().copied()),
            Operator::NotIn => {
                let mut r = Self::in_values(values.iter().copied());
                r.complement = true;
                r
            }
            Operator::Exists => Self::exists(),
            Operator::DoesNotExist => Self::does_not_exist(),
            Operator::Gt => match bound().checked_add(1) {
                Some(n) => Requirement { gte: Some(n), ..Self::exists() },
                None => Self::does_not_exist(),
            },
            Operator::Lt => match bound().checked_sub(1) {
                Some(n) => Requirement { lte: Some(n), ..Self::exists() },
                None => Self::does_not_exist(),
            },
            Operator::Gte => Requirement { gte: Some(bound()), ..Self::exists() },
            Operator::Lte => Requirement { lte: Some(bound()), ..Self::exists() },
        }
    }

    pub fn with_min_values(mut self, min: Option<u32>) -> Self {
        self.min_values = min;
        self
    }

    fn within_bounds(&self, v: ValueId, interner: &Interner) -> bool {
        if self.gte.is_none() && self.lte.is_none() {
            return true;
        }
        match interner.int(v) {
            None => false,
            Some(n) => self.gte.is_none_or(|g| n >= g) && self.lte.is_none_or(|l| n <= l),
        }
    }

    /// Is value `v` allowed (R2.3.2)?
    pub fn has(&self, v: ValueId, interner: &Interner) -> bool {
        let listed = self.values.binary_search(&v).is_ok();
        (listed != self.complement) && self.within_bounds(v, interner)
    }

    /// The operator this requirement reports as (R2.3.1).
    pub fn derived_op(&self) -> Operator {
        match (self.complement, self.values.is_empty()) {
            (true, false) => Operator::NotIn,
            (true, true) => Operator::Exists,
            (false, false) => Operator::In,
            (false, true) => Operator::DoesNotExist,
        }
    }

    /// Does this requirement accept a node that lacks the label? Karpenter's rule: only when
    /// its derived operator is NotIn or DoesNotExist (R2.6.2 applied against DoesNotExist).
    pub fn allows_absent(&self) -> bool {
        matches!(self.derived_op(), Operator::NotIn | Operator::DoesNotExist)
    }

    /// Intersection (R2.4).
    pub fn intersect(&self, other: &Requirement, interner: &Interner) -> Requirement {
        let gte = max_opt(self.gte, other.gte);
        let lte = min_opt(self.lte, other.lte);
        let min_values = max_opt(self.min_values, other.min_values);
        if let (Some(g), Some(l)) = (gte, lte) {
            if g > l {
                return Requirement { min_values, ..Self::does_not_exist() };
            }
        }
        let (complement, mut values) = match (self.complement, other.complement) {
            (true, true) => (true, union(&self.values, &other.values)),
            (true, false) => (false, difference(&other.values, &self.values)),
            (false, true) => (false, difference(&self.values, &other.values)),
            (false, false) => (false, intersection(&self.values, &other.values)),
        };
        let mut r = Requirement { complement, values: Values::new(), gte, lte, min_values };
        values.retain(|v| r.within_bounds(*v, interner));
        r.values = values;
        if !r.complement {
            r.gte = None;
            r.lte = None;
        }
        r
    }

    /// HasIntersection (R2.5).
    pub fn has_intersection(&self, other: &Requirement, interner: &Interner) -> bool {
        let gte = max_opt(self.gte, other.gte);
        let lte = min_opt(self.lte, other.lte);
        if let (Some(g), Some(l)) = (gte, lte) {
            if g > l {
                return false;
            }
        }
        let in_bounds = |v: ValueId| match (gte, lte) {
            (None, None) => true,
            _ => interner.int(v).is_some_and(|n| gte.is_none_or(|g| n >= g) && lte.is_none_or(|l| n <= l)),
        };
        match (self.complement, other.complement) {
            (true, true) => true,
            (true, false) => other.values.iter().any(|v| !self.values.contains(v) && in_bounds(*v)),
            (false, true) => self.values.iter().any(|v| !other.values.contains(v) && in_bounds(*v)),
            (false, false) => intersection(&self.values, &other.values).iter().any(|v| in_bounds(*v)),
        }
    }

    /// Number of distinct concrete values (for minValues); complements are unbounded.
    pub fn concrete_len(&self) -> Option<usize> {
        (!self.complement).then_some(self.values.len())
    }

    /// A deterministic concrete value for a custom label (R2.13, with the determinism
    /// recommendation): smallest listed value for In, else the smallest allowed integer ≥ 0.
    pub fn any_value(&self, interner: &Interner) -> Option<String> {
        if !self.complement {
            return self.values.iter().map(|v| interner.str(*v)).min().map(str::to_string);
        }
        let mut n = self.gte.unwrap_or(0).max(0);
        let excluded: Vec<i64> = self.values.iter().filter_map(|v| interner.int(*v)).collect();
        while excluded.contains(&n) || self.values.iter().any(|v| interner.str(*v) == n.to_string()) {
            // `Gt 9223372036854775806` with that maximum excluded leaves no integer at all
            // (a fuzz finding: this used to wrap to i64::MIN).
            n = n.checked_add(1)?;
        }
        if self.lte.is_some_and(|l| n > l) {
            return None;
        }
        Some(n.to_string())
    }

    /// Render like Karpenter's messages: `In [a b]`, `NotIn [x]`, `Exists >=5`, `DoesNotExist`.
    pub fn render(&self, interner: &Interner) -> String {
        let mut s = String::from(self.derived_op().as_str());
        if !self.values.is_empty() {
            let mut names: Vec<&str> = self.values.iter().map(|v| interner.str(*v)).collect();
            names.sort_unstable();
            s.push_str(" [");
            let shown = names.len().min(5);
            s.push_str(&names[..shown].join(" "));
            if names.len() > shown {
                let _ = write!(s, " and {} others", names.len() - shown);
            }
            s.push(']');
        }
        if let Some(g) = self.gte {
            let _ = write!(s, " >={g}");
        }
        if let Some(l) = self.lte {
            let _ = write!(s, " <={l}");
        }
        if let Some(m) = self.min_values {
            let _ = write!(s, " minValues {m}");
        }
        s
    }
}

fn max_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn min_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn intersection(a: &[ValueId], b: &[ValueId]) -> Values {
    let (mut i, mut j, mut out) = (0, 0, Values::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn union(a: &[ValueId], b: &[ValueId]) -> Values {
    let mut out: Values = a.iter().chain(b).copied().collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn difference(a: &[ValueId], b: &[ValueId]) -> Values {
    a.iter().copied().filter(|v| b.binary_search(v).is_err()).collect()
}

/// Why two requirement sets are incompatible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incompatible {
    /// The incoming side needs a custom label the other side does not define (R2.7.1).
    Undefined(KeyId),
    /// Both define the key and share no value (R2.6.2).
    Conflict(KeyId),
}

/// A set of requirements, at most one per key, sorted by key id (R2.1.2).
/// A requirement set seen without some keys, hashed and compared in place: a map key for
/// "the same requirements but for the hostname" without cloning every set to remove them.
#[derive(Debug, Clone, Copy)]
pub struct Without<'a> {
    pub reqs: &'a Requirements,
    pub skip: [KeyId; 4],
}

impl<'a> Without<'a> {
    pub fn iter(&self) -> impl Iterator<Item = (KeyId, &'a Requirement)> + '_ {
        self.reqs.iter().filter(|(k, _)| !self.skip.contains(k))
    }
}

impl PartialEq for Without<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Without<'_> {}

impl std::hash::Hash for Without<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for (k, r) in self.iter() {
            k.hash(h);
            r.hash(h);
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Requirements {
    entries: SmallVec<[(KeyId, Requirement); 6]>,
}

impl Requirements {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, key: KeyId) -> Option<&Requirement> {
        self.entries.binary_search_by_key(&key, |(k, _)| *k).ok().map(|i| &self.entries[i].1)
    }

    pub fn has_key(&self, key: KeyId) -> bool {
        self.get(key).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (KeyId, &Requirement)> {
        self.entries.iter().map(|(k, r)| (*k, r))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Add a requirement, intersecting with an existing one on the same key (R2.4.5).
    pub fn add(&mut self, key: KeyId, req: Requirement, interner: &Interner) {
        match self.entries.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => {
                let merged = self.entries[i].1.intersect(&req, interner);
                self.entries[i].1 = merged;
            }
            Err(i) => self.entries.insert(i, (key, req)),
        }
    }

    /// Replace (not intersect) a key's requirement.
    pub fn set(&mut self, key: KeyId, req: Requirement) {
        match self.entries.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => self.entries[i].1 = req,
            Err(i) => self.entries.insert(i, (key, req)),
        }
    }

    pub fn remove(&mut self, key: KeyId) {
        if let Ok(i) = self.entries.binary_search_by_key(&key, |(k, _)| *k) {
            self.entries.remove(i);
        }
    }

    pub fn add_all(&mut self, other: &Requirements, interner: &Interner) {
        for (k, r) in other.iter() {
            self.add(k, r.clone(), interner);
        }
    }

    /// Set-level Intersects (R2.6): only shared keys are checked.
    pub fn intersects(&self, other: &Requirements, interner: &Interner) -> Result<(), Incompatible> {
        let (a, b) = (&self.entries, &other.entries);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let (ra, rb) = (&a[i].1, &b[j].1);
                    if !(ra.has_intersection(rb, interner) || ra.allows_absent() && rb.allows_absent()) {
                        return Err(Incompatible::Conflict(a[i].0));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Ok(())
    }

    /// Compatible(self = node side, incoming) (R2.7): every key the incoming side requires
    /// positively must be defined here unless `allow_undefined(key)`; then Intersects.
    /// Keys are visited in id order, so the reported key is deterministic.
    pub fn compatible(
        &self,
        incoming: &Requirements,
        allow_undefined: impl Fn(KeyId) -> bool,
        interner: &Interner,
    ) -> Result<(), Incompatible> {
        for (k, r) in incoming.iter() {
            if !allow_undefined(k) && !self.has_key(k) && !r.allows_absent() {
                return Err(Incompatible::Undefined(k));
            }
        }
        self.intersects(incoming, interner)
    }

    /// Render as sorted `key Op [values]` entries, for messages.
    pub fn render(&self, interner: &Interner, skip: impl Fn(KeyId) -> bool) -> String {
        let mut parts: Vec<String> =
            self.iter().filter(|(k, _)| !skip(*k)).map(|(k, r)| format!("{} {}", interner.str(k), r.render(interner))).collect();
        parts.sort();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Interner, impl Fn(&mut Interner, &[&str]) -> Vec<ValueId>) {
        let intern = |i: &mut Interner, vs: &[&str]| vs.iter().map(|v| i.intern(v)).collect::<Vec<_>>();
        (Interner::new(), intern)
    }

    #[test]
    fn intersection_examples_from_spec() {
        let (mut i, v) = setup();
        let ab = v(&mut i, &["a", "b"]);
        let b = v(&mut i, &["b"]);
        let a = v(&mut i, &["a"]);
        let r = Requirement::from_operator(Operator::In, &ab, &i).intersect(&Requirement::from_operator(Operator::NotIn, &b, &i), &i);
        assert_eq!(r, Requirement::in_values(a.clone()));

        let nums = v(&mut i, &["1", "5", "10"]);
        let four = v(&mut i, &["4"]);
        let r = Requirement::from_operator(Operator::In, &nums, &i).intersect(&Requirement::from_operator(Operator::Gt, &four, &i), &i);
        let expect = v(&mut i, &["5", "10"]);
        assert_eq!(r, Requirement::in_values(expect));

        let five = v(&mut i, &["5"]);
        let three = v(&mut i, &["3"]);
        let r = Requirement::from_operator(Operator::Gt, &five, &i).intersect(&Requirement::from_operator(Operator::Lt, &three, &i), &i);
        assert_eq!(r.derived_op(), Operator::DoesNotExist);

        let r = Requirement::from_operator(Operator::NotIn, &a, &i).intersect(&Requirement::from_operator(Operator::NotIn, &b, &i), &i);
        assert_eq!(r.derived_op(), Operator::NotIn);
        assert_eq!(r.values.len(), 2);

        let r = Requirement::exists().intersect(&Requirement::does_not_exist(), &i);
        assert_eq!(r.derived_op(), Operator::DoesNotExist);
    }

    #[test]
    fn compatible_truth_table() {
        let (mut i, v) = setup();
        let key = i.intern("example.com/team");
        let x = v(&mut i, &["x"]);
        let mut pod = Requirements::new();
        pod.add(key, Requirement::from_operator(Operator::In, &x, &i), &i);
        let empty = Requirements::new();
        assert_eq!(empty.compatible(&pod, |_| false, &i), Err(Incompatible::Undefined(key)));
        assert_eq!(empty.compatible(&pod, |_| true, &i), Ok(()));

        let mut pod = Requirements::new();
        pod.add(key, Requirement::from_operator(Operator::NotIn, &x, &i), &i);
        assert_eq!(empty.compatible(&pod, |_| false, &i), Ok(()));

        let mut np = Requirements::new();
        np.add(key, Requirement::from_operator(Operator::In, &x, &i), &i);
        assert_eq!(np.compatible(&pod, |_| false, &i), Err(Incompatible::Conflict(key)));

        let mut np = Requirements::new();
        np.add(key, Requirement::from_operator(Operator::NotIn, &x, &i), &i);
        let mut pod = Requirements::new();
        pod.add(key, Requirement::does_not_exist(), &i);
        assert_eq!(np.compatible(&pod, |_| false, &i), Ok(()));

        let five = v(&mut i, &["5"]);
        let seven = v(&mut i, &["7"]);
        let three = v(&mut i, &["3"]);
        let mut np = Requirements::new();
        np.add(key, Requirement::from_operator(Operator::Gt, &five, &i), &i);
        let mut pod = Requirements::new();
        pod.add(key, Requirement::from_operator(Operator::In, &seven, &i), &i);
        assert!(np.compatible(&pod, |_| false, &i).is_ok());
        let mut pod = Requirements::new();
        pod.add(key, Requirement::from_operator(Operator::In, &three, &i), &i);
        assert!(np.compatible(&pod, |_| false, &i).is_err());
    }

    #[test]
    fn any_value_is_deterministic() {
        let (mut i, v) = setup();
        let vals = v(&mut i, &["green", "blue"]);
        assert_eq!(Requirement::in_values(vals.clone()).any_value(&i).as_deref(), Some("blue"));
        let mut r = Requirement::in_values(vals);
        r.complement = true;
        assert_eq!(r.any_value(&i).as_deref(), Some("0"));
        let five = v(&mut i, &["5"]);
        assert_eq!(Requirement::from_operator(Operator::Gt, &five, &i).any_value(&i).as_deref(), Some("6"));
        // Gte i64::MAX with i64::MAX excluded: no integer is left, and none is made up.
        let max = v(&mut i, &[&i64::MAX.to_string()]);
        let mut r = Requirement::from_operator(Operator::Gte, &max, &i);
        r.values = max.into_iter().collect();
        assert_eq!(r.any_value(&i), None);
    }
}

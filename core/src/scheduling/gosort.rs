//! Go's `sort.Slice`, reproduced so that ties come out in the order Karpenter leaves them.
//!
//! Karpenter re-sorts its in-flight NodeClaims by pod count with `sort.Slice` before it tries
//! them (see `inflight`). `sort.Slice` is not stable above 12 elements, so which of several
//! NodeClaims with the same pod count a pod is offered to first depends on exactly how Go
//! permutes them. Go's sort is deterministic (its only randomness is a xorshift generator
//! seeded with the length of the range), so doing the same comparisons and swaps in the same
//! order yields the same permutation.
//!
//! Algorithm source: the Go standard library, `sort/zsortfunc.go` (`pdqsort_func` and its
//! helpers) and `sort/sort.go` (`xorshift`, `nextPowerOfTwo`), Go 1.27.3, BSD-licensed. This is
//! a re-implementation of that algorithm (pattern-defeating quicksort without block
//! partitioning), not a transcription; `testdata/go_sort_slice.txt`, produced by real Go,
//! checks that the permutations agree.

/// A sequence that can be compared and permuted by position (Go's `lessSwap`).
pub trait SortData {
    fn less(&mut self, i: usize, j: usize) -> bool;
    fn swap(&mut self, i: usize, j: usize);
}

/// `sort.Slice(v, less)`: the permutation Go produces, comparisons included.
pub fn sort_slice<T>(v: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    struct Slice<'a, T, F> {
        v: &'a mut [T],
        less: F,
    }
    impl<T, F: FnMut(&T, &T) -> bool> SortData for Slice<'_, T, F> {
        fn less(&mut self, i: usize, j: usize) -> bool {
            (self.less)(&self.v[i], &self.v[j])
        }
        fn swap(&mut self, i: usize, j: usize) {
            self.v.swap(i, j);
        }
    }
    let n = v.len();
    sort(&mut Slice { v, less }, n);
}

/// Sort positions `0..n` of `d` the way `sort.Slice` does.
pub fn sort<D: SortData>(d: &mut D, n: usize) {
    pdqsort(d, 0, n, bit_len(n));
}

/// What the pivot sample says about the order of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

/// Ranges up to this length are insertion-sorted.
pub const MAX_INSERTION: usize = 12;
/// From this length on, the pivot is a ninther and a nearly sorted range is repaired in place.
pub const SHORTEST_NINTHER: usize = 50;

/// Number of bits needed to write `n` (Go's `bits.Len`).
fn bit_len(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

fn insertion_sort<D: SortData>(d: &mut D, a: usize, b: usize) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && d.less(j, j - 1) {
            d.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Restore the max-heap property below `root` in the heap stored at `first..first + hi`.
fn sift_down<D: SortData>(d: &mut D, mut root: usize, hi: usize, first: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= hi {
            return;
        }
        if child + 1 < hi && d.less(first + child, first + child + 1) {
            child += 1;
        }
        if !d.less(first + root, first + child) {
            return;
        }
        d.swap(first + root, first + child);
        root = child;
    }
}

fn heap_sort<D: SortData>(d: &mut D, a: usize, b: usize) {
    let hi = b - a;
    if hi == 0 {
        return;
    }
    for root in (0..=(hi - 1) / 2).rev() {
        sift_down(d, root, hi, a);
    }
    for last in (0..hi).rev() {
        d.swap(a, a + last);
        sift_down(d, 0, last, a);
    }
}

/// The quicksort loop: recurse into the shorter side, iterate on the longer one.
fn pdqsort<D: SortData>(d: &mut D, mut a: usize, mut b: usize, mut limit: u32) {
    let mut balanced = true;
    let mut partitioned = true;
    loop {
        let len = b - a;
        if len <= MAX_INSERTION {
            insertion_sort(d, a, b);
            return;
        }
        if limit == 0 {
            heap_sort(d, a, b);
            return;
        }
        if !balanced {
            break_patterns(d, a, b);
            limit -= 1;
        }
        let (mut pivot, mut hint) = choose_pivot(d, a, b);
        if hint == Hint::Decreasing {
            reverse(d, a, b);
            // The pivot keeps its value; mirrored, it now sits as far from the end as it was
            // from the start.
            pivot = (b - 1) - (pivot - a);
            hint = Hint::Increasing;
        }
        if balanced && partitioned && hint == Hint::Increasing && partial_insertion_sort(d, a, b) {
            return;
        }
        // Everything left of `a` is <= every element here; if the pivot is not above it, the
        // range is full of copies of the pivot: split off the equal ones.
        if a > 0 && !d.less(a - 1, pivot) {
            a = partition_equal(d, a, b, pivot);
            continue;
        }
        let (mid, was_partitioned) = partition(d, a, b, pivot);
        partitioned = was_partitioned;
        let (left, right) = (mid - a, b - mid);
        let threshold = len / 8;
        if left < right {
            balanced = left >= threshold;
            pdqsort(d, a, mid, limit);
            a = mid + 1;
        } else {
            balanced = right >= threshold;
            pdqsort(d, mid + 1, b, limit);
            b = mid;
        }
    }
}

/// Hoare partition around `pivot`: smaller elements left of the returned index, the others
/// right of it. Also says whether no element had to move.
fn partition<D: SortData>(d: &mut D, a: usize, b: usize, pivot: usize) -> (usize, bool) {
    d.swap(a, pivot);
    let (mut i, mut j) = (a + 1, b - 1);
    while i <= j && d.less(i, a) {
        i += 1;
    }
    while i <= j && !d.less(j, a) {
        j -= 1;
    }
    if i > j {
        d.swap(j, a);
        return (j, true);
    }
    d.swap(i, j);
    i += 1;
    j -= 1;
    loop {
        while i <= j && d.less(i, a) {
            i += 1;
        }
        while i <= j && !d.less(j, a) {
            j -= 1;
        }
        if i > j {
            break;
        }
        d.swap(i, j);
        i += 1;
        j -= 1;
    }
    d.swap(j, a);
    (j, false)
}

/// Split a range holding nothing below the pivot into copies of the pivot, then the greater
/// elements; returns where the greater ones start.
fn partition_equal<D: SortData>(d: &mut D, a: usize, b: usize, pivot: usize) -> usize {
    d.swap(a, pivot);
    let (mut i, mut j) = (a + 1, b - 1);
    loop {
        while i <= j && !d.less(a, i) {
            i += 1;
        }
        while i <= j && d.less(a, j) {
            j -= 1;
        }
        if i > j {
            return i;
        }
        d.swap(i, j);
        i += 1;
        j -= 1;
    }
}

/// Repair up to five out-of-order neighbours of a presumably sorted range; true when the range
/// ends up sorted. Short ranges are only checked, never changed.
pub fn partial_insertion_sort<D: SortData>(d: &mut D, a: usize, b: usize) -> bool {
    const MAX_STEPS: usize = 5;
    let mut i = a + 1;
    for _ in 0..MAX_STEPS {
        while i < b && !d.less(i, i - 1) {
            i += 1;
        }
        if i == b {
            return true;
        }
        if b - a < SHORTEST_NINTHER {
            return false;
        }
        d.swap(i, i - 1);
        // Move the smaller of the pair left. Go bounds this walk by position 1, not by `a`;
        // kept, since it decides which comparisons are made.
        if i - a >= 2 {
            let mut j = i - 1;
            while j >= 1 && d.less(j, j - 1) {
                d.swap(j, j - 1);
                j -= 1;
            }
        }
        // And the greater one right.
        if b - i >= 2 {
            let mut j = i + 1;
            while j < b && d.less(j, j - 1) {
                d.swap(j, j - 1);
                j += 1;
            }
        }
    }
    false
}

/// Go's xorshift generator (13, 7, 17), seeded with the range length.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// After an unbalanced partition, swap three elements around the middle with pseudo-random
/// ones.
fn break_patterns<D: SortData>(d: &mut D, a: usize, b: usize) {
    let len = b - a;
    if len < 8 {
        return;
    }
    let mut random = XorShift(len as u64);
    let mask = (1usize << bit_len(len)) - 1;
    let middle = a + (len / 4) * 2;
    for idx in middle - 1..=middle + 1 {
        let mut other = (random.next() as usize) & mask;
        if other >= len {
            other -= len;
        }
        d.swap(idx, a + other);
    }
}

/// The pivot position for `a..b` and what its sample says about the order. Only compares:
/// `inflight` runs it on a virtual sequence to predict Go's first step.
pub fn choose_pivot<D: SortData>(d: &mut D, a: usize, b: usize) -> (usize, Hint) {
    const ALL_SWAPPED: usize = 4 * 3;
    let len = b - a;
    let quarter = len / 4;
    let mut swaps = 0;
    let (mut i, mut j, mut k) = (a + quarter, a + quarter * 2, a + quarter * 3);
    if len >= 8 {
        if len >= SHORTEST_NINTHER {
            i = median_of(d, i - 1, i, i + 1, &mut swaps);
            j = median_of(d, j - 1, j, j + 1, &mut swaps);
            k = median_of(d, k - 1, k, k + 1, &mut swaps);
        }
        j = median_of(d, i, j, k, &mut swaps);
    }
    let hint = match swaps {
        0 => Hint::Increasing,
        ALL_SWAPPED => Hint::Decreasing,
        _ => Hint::Unknown,
    };
    (j, hint)
}

/// The position holding the median of three, counting the pairs found out of order.
fn median_of<D: SortData>(d: &mut D, x: usize, y: usize, z: usize, swaps: &mut usize) -> usize {
    let mut ordered = |d: &mut D, p: usize, q: usize| {
        if d.less(q, p) {
            *swaps += 1;
            (q, p)
        } else {
            (p, q)
        }
    };
    let (x, y) = ordered(d, x, y);
    let (y, _) = ordered(d, y, z);
    let (_, y) = ordered(d, x, y);
    y
}

fn reverse<D: SortData>(d: &mut D, a: usize, b: usize) {
    if b <= a + 1 {
        return;
    }
    let (mut i, mut j) = (a, b - 1);
    while i < j {
        d.swap(i, j);
        i += 1;
        j -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the fixture is `keys | order`: Go sorted the indices `0..n` by `keys` with
    /// `sort.Slice` (Go 1.27.3, `tools/go_sort_fixture.go`) and left them in `order`.
    #[test]
    fn permutations_match_go() {
        let data = include_str!("testdata/go_sort_slice.txt");
        let mut cases = 0;
        for line in data.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (keys, order) = line.split_once('|').expect("fixture line");
            let parse = |s: &str| s.split_whitespace().map(|x| x.parse::<u32>().expect("number")).collect::<Vec<u32>>();
            let (keys, want) = (parse(keys), parse(order));
            let mut got: Vec<u32> = (0..keys.len() as u32).collect();
            sort_slice(&mut got, |a, b| keys[*a as usize] < keys[*b as usize]);
            assert_eq!(got, want, "keys {keys:?}");
            cases += 1;
        }
        assert!(cases >= 300, "only {cases} fixture cases");
    }

    #[test]
    fn sorts_and_is_unstable_above_twelve() {
        // 13 equal keys but one: Go's partition moves equal elements past each other.
        let keys = [1u32, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0];
        let mut v: Vec<usize> = (0..keys.len()).collect();
        sort_slice(&mut v, |a, b| keys[*a] < keys[*b]);
        assert!(v.windows(2).all(|w| keys[w[0]] <= keys[w[1]]));
        assert_eq!(v[0], 12);
        let ties: Vec<usize> = v[1..].to_vec();
        assert_ne!(ties, (0..12).collect::<Vec<_>>(), "expected Go's unstable order");
    }

    #[test]
    fn heap_sort_sorts() {
        // Reached only after too many bad pivots; exercised directly.
        let mut v = vec![5u32, 3, 9, 1, 1, 7, 0, 2, 8, 6, 4, 3, 5, 11, 10];
        struct S<'a>(&'a mut Vec<u32>);
        impl SortData for S<'_> {
            fn less(&mut self, i: usize, j: usize) -> bool {
                self.0[i] < self.0[j]
            }
            fn swap(&mut self, i: usize, j: usize) {
                self.0.swap(i, j);
            }
        }
        let n = v.len();
        heap_sort(&mut S(&mut v), 0, n);
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
    }
}

//! Input generators for the nodecast benchmarks.
//!
//! Everything here is deterministic: a fixed-seed SplitMix64 generator stands in for `rand`,
//! so every run (and every machine) benchmarks exactly the same requests.

pub mod hpa;

mod consolidation;
mod diverse;
mod dra;
mod gpu;
mod packing;
mod reserved;
mod simulate;

pub use consolidation::*;
pub use diverse::*;
pub use dra::*;
pub use gpu::*;
pub use packing::*;
pub use reserved::*;
pub use simulate::*;

use nodecast::{Outcome, Request};
use serde_json::{json, Value};

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for picking test inputs.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant for benchmark inputs).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

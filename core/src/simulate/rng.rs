//! A small seeded PRNG and the distributions the simulation draws from.
//!
//! Why not `rand`: the answer must be byte-identical on native targets and wasm, so every draw
//! uses integer arithmetic and IEEE-754 `+ − × ÷` only (those are exactly rounded everywhere).
//! `f64::ln`/`exp` call the platform's libm, whose last bit differs between glibc, musl and the
//! wasm port; the logarithm below is ours for that reason.

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, full period, good enough statistical
/// quality for sampling latencies and interruption times.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// A generator for one purpose (`stream`) and one object (`index`): draws for pod 17 do not
    /// depend on how many draws pod 3 made, so adding an event does not reshuffle the others.
    pub fn derive(seed: u64, stream: u64, index: u64) -> Self {
        let mut g = SplitMix64::new(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let a = g.next_u64();
        SplitMix64::new(a ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [lo, hi] (inclusive); `lo` when `hi <= lo`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        // Multiply-shift instead of modulo: unbiased enough for spans far below 2^64.
        lo + ((self.next_u64() as u128 * span as u128) >> 64) as i64
    }

    /// Exponential with the given mean (same unit as the mean).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - unit() is in (0, 1], so the logarithm is finite.
        -ln(1.0 - self.unit()) * mean
    }

    /// Approximately normal (Irwin–Hall: the sum of 12 uniforms minus 6 has mean 0, variance 1).
    pub fn normal(&mut self, mean: f64, stddev: f64) -> f64 {
        let mut s = 0.0;
        for _ in 0..12 {
            s += self.unit();
        }
        mean + (s - 6.0) * stddev
    }
}

/// Natural logarithm of a positive finite `x` with only exactly-rounded operations: split
/// `x = m · 2^e` with m in [√½, √2), then ln m = 2·atanh(s), s = (m−1)/(m+1), |s| < 0.172, whose
/// series converges to double precision in 12 terms.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let mut bits = x.to_bits();
    let mut e: i64 = ((bits >> 52) & 0x7ff) as i64;
    if e == 0 {
        // Subnormal: scale into the normal range first.
        let scaled = x * (1u64 << 54) as f64;
        bits = scaled.to_bits();
        e = ((bits >> 52) & 0x7ff) as i64 - 54;
    }
    e -= 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..14 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * std::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_matches_std_closely() {
        for &x in &[1e-300, 1e-10, 0.001, 0.1, 0.5, 0.7, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300] {
            let (a, b) = (ln(x), x.ln());
            assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{x}: {a} vs {b}");
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn splitmix_is_reproducible_and_ranges_hold() {
        let mut a = SplitMix64::derive(7, 1, 2);
        let mut b = SplitMix64::derive(7, 1, 2);
        for _ in 0..1000 {
            let x = a.range(60, 90);
            assert_eq!(x, b.range(60, 90));
            assert!((60..=90).contains(&x));
        }
        assert_ne!(SplitMix64::derive(7, 1, 2).next_u64(), SplitMix64::derive(7, 1, 3).next_u64());
    }

    #[test]
    fn exponential_mean_is_about_right() {
        let mut g = SplitMix64::new(1);
        let n = 20000;
        let mean: f64 = (0..n).map(|_| g.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((mean - 3.0).abs() < 0.1, "{mean}");
    }
}

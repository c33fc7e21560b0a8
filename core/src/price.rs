//! Money as the answers show it.

/// Prices are rounded to 1e-9 $/h so that sums print the same everywhere.
pub fn round_price(p: f64) -> f64 {
    // `+ 0.0` turns the -0.0 of an empty f64 sum into 0.0, so JSON never shows "-0.0".
    (p * 1e9).round() / 1e9 + 0.0
}

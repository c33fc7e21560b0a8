//! Kubernetes resource quantities, exact.
//!
//! A quantity is held as a signed number of *milli-units* in an `i64`: `1500m` CPU is 1500,
//! `1Gi` memory is 1 073 741 824 000. That covers up to ~9.2 PB of memory exactly, far beyond any
//! instance, and lets every resource share one integer type. Like Kubernetes' `MilliValue`,
//! anything finer than a milli-unit is rounded *up* (a request of `1u` CPU still needs 1m).
//! Values that do not fit are an error, never a silent wrap.

use std::fmt;

/// Why a quantity string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    Empty,
    Syntax(String),
    TooLarge(String),
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantityError::Empty => write!(f, "empty quantity"),
            QuantityError::Syntax(s) => write!(f, "{s:?} is not a Kubernetes quantity"),
            QuantityError::TooLarge(s) => write!(f, "quantity {s:?} is too large"),
        }
    }
}

/// The accepted grammar, for help texts.
pub const QUANTITY_HELP: &str = "a Kubernetes quantity such as 500m, 2, 1.5, 4Gi, 512Mi, 1G or 1e3";

const MAX_DIGITS: usize = 36;

/// Parse a quantity into milli-units (rounded up). Accepts the Kubernetes grammar:
/// optional sign, decimal number, then a binary suffix (Ki..Ei), a decimal suffix
/// (n, u, m, k, M, G, T, P, E) or a decimal exponent (e3, E-2).
pub fn parse_milli(s: &str) -> Result<i64, QuantityError> {
    let text = s.trim();
    if text.is_empty() {
        return Err(QuantityError::Empty);
    }
    let syntax = || QuantityError::Syntax(s.to_string());
    let too_large = || QuantityError::TooLarge(s.to_string());
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = match bytes[0] {
        b'-' => {
            i = 1;
            true
        }
        b'+' => {
            i = 1;
            false
        }
        _ => false,
    };
    // Mantissa: digits [. digits] or . digits
    let int_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = &text[int_start..i];
    let mut frac_digits = "";
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        let fs = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = &text[fs..i];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(syntax());
    }
    let suffix = &text[i..];
    // A zero mantissa is zero whatever the scale (`0e400015` is 0, not too large).
    let zero = int_digits.bytes().all(|b| b == b'0') && frac_digits.bytes().all(|b| b == b'0');
    // Scale: value = mantissa * 2^bin * 10^dec
    let (bin, dec): (u32, i32) = match suffix {
        "" => (0, 0),
        "Ki" => (10, 0),
        "Mi" => (20, 0),
        "Gi" => (30, 0),
        "Ti" => (40, 0),
        "Pi" => (50, 0),
        "Ei" => (60, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        _ if suffix.starts_with(['e', 'E']) => {
            let exp = &suffix[1..];
            let (eneg, edigits) = match exp.as_bytes().first() {
                Some(b'-') => (true, &exp[1..]),
                Some(b'+') => (false, &exp[1..]),
                _ => (false, exp),
            };
            if edigits.is_empty() || !edigits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            let trimmed = edigits.trim_start_matches('0');
            if trimmed.len() > 4 {
                // 1e400 and friends: far outside any representable quantity.
                if eneg || zero {
                    (0, -10_000)
                } else {
                    return Err(too_large());
                }
            } else {
                let e: i32 = trimmed.parse().unwrap_or(0);
                (0, if eneg { -e } else { e })
            }
        }
        _ => return Err(syntax()),
    };
    // Mantissa as an integer N with f fractional digits: value = N * 10^-f.
    let int_trim = int_digits.trim_start_matches('0');
    let frac_trim = frac_digits.trim_end_matches('0');
    // Keep at most MAX_DIGITS significant digits; the rest only force a round-up. Integer
    // digits beyond them scale by ten each (a 62-digit integer times e-9999 is tiny, not too
    // large: a fuzz finding).
    let (int_trim, int_dropped) = int_trim.split_at(int_trim.len().min(MAX_DIGITS));
    let frac_trim = if int_dropped.is_empty() { frac_trim } else { "" };
    // Without integer digits, the fraction's leading zeros are not significant: they only
    // shift the exponent (`.000…0003E96` with 37 zeros is 3e59, too large, not 0: a fuzz
    // finding). Count them as fractional digits without spending the digit budget on them.
    let frac_lead = if int_trim.is_empty() { frac_trim.len() - frac_trim.trim_start_matches('0').len() } else { 0 };
    let frac_trim = &frac_trim[frac_lead..];
    let frac_lead = i32::try_from(frac_lead).unwrap_or(i32::MAX);
    let dropped_nonzero = !int_dropped.is_empty() && int_dropped.bytes().chain(frac_digits.bytes()).any(|b| b != b'0');
    let (frac_kept, frac_rest_nonzero) = if int_trim.len() + frac_trim.len() > MAX_DIGITS {
        let keep = MAX_DIGITS.saturating_sub(int_trim.len());
        (&frac_trim[..keep], frac_trim[keep..].bytes().any(|b| b != b'0'))
    } else {
        (frac_trim, false)
    };
    let mut n: i128 = 0;
    for b in int_trim.bytes().chain(frac_kept.bytes()) {
        n = n * 10 + i128::from(b - b'0');
    }
    // milli-units: multiply by 1000 → exponent + 3.
    let scale = i32::try_from(int_dropped.len()).map_err(|_| too_large())?;
    let exp10 = dec.saturating_add(3).saturating_add(scale).saturating_sub(frac_lead) - frac_kept.len() as i32;
    let mut round_up = frac_rest_nonzero || dropped_nonzero;
    let mut v;
    if exp10 >= 0 {
        v = n.checked_mul(1i128 << bin).ok_or_else(too_large)?;
        for _ in 0..exp10 {
            v = v.checked_mul(10).ok_or_else(too_large)?;
            if v > i128::from(i64::MAX) {
                return Err(too_large());
            }
        }
    } else {
        // value = num * 2^bin / 10^d. Dividing before multiplying keeps a 36-digit mantissa
        // times 2^60 (`.8111…1Gi`, a fuzz finding) from overflowing i128.
        let mut num = n;
        let mut d = exp10.unsigned_abs();
        // Digits more than 37 places below a milli-unit cannot reach one even times 2^60: they
        // only round up.
        while d > 37 && num > 0 {
            round_up |= num % 10 != 0;
            num /= 10;
            d -= 1;
        }
        if num == 0 {
            v = 0;
            round_up |= n > 0;
        } else {
            let den = 10i128.pow(d);
            v = (num / den).checked_mul(1i128 << bin).filter(|q| *q <= i128::from(i64::MAX)).ok_or_else(too_large)?;
            // The remainder's share, num % den * 2^bin / den, by binary long division.
            let mut rem = num % den;
            let mut low: i128 = 0;
            for _ in 0..bin {
                rem <<= 1;
                low <<= 1;
                if rem >= den {
                    rem -= den;
                    low |= 1;
                }
            }
            v += low;
            round_up |= rem != 0;
        }
    }
    if round_up && n != 0 {
        // Round toward +infinity like Kubernetes' MilliValue (for negatives: toward zero).
        if !negative {
            v += 1;
        }
    }
    if v > i128::from(i64::MAX) {
        return Err(too_large());
    }
    let v = v as i64;
    Ok(if negative { -v } else { v })
}

/// How a resource's amounts are best printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// cpu and other plain counts: `1500m`, `2`, `96`.
    Decimal,
    /// memory, storage: `512Mi`, `64Gi`, else bytes.
    Bytes,
}

/// Format milli-units canonically: `1500m`, `4`, `64Gi`, `1536Mi`.
///
/// `i64::MAX` is not a real amount but the cap a quantity too large for milli-units is held at
/// (the reader's note on Kubernetes accepting any magnitude): it prints as a lower bound that
/// holds for every capped value (`>8Pi` bytes, `>9223372036854775` units), not as
/// `9223372036854775807m`.
pub fn format_milli(milli: i64, unit: Unit) -> String {
    if milli == i64::MAX {
        return match unit {
            Unit::Bytes => ">8Pi".to_string(),
            Unit::Decimal => format!(">{}", i64::MAX / 1000),
        };
    }
    if milli % 1000 != 0 {
        return format!("{milli}m");
    }
    let v = milli / 1000;
    if unit == Unit::Bytes && v != 0 {
        for (shift, suffix) in [(50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")] {
            let m = 1i64 << shift;
            if v % m == 0 {
                return format!("{}{suffix}", v / m);
            }
        }
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        assert_eq!(parse_milli("1500m"), Ok(1500));
        assert_eq!(parse_milli("2"), Ok(2000));
        assert_eq!(parse_milli("1.5"), Ok(1500));
        assert_eq!(parse_milli(".5"), Ok(500));
        assert_eq!(parse_milli("1Gi"), Ok(1_073_741_824_000));
        assert_eq!(parse_milli("1.8G"), Ok(1_800_000_000_000));
        assert_eq!(parse_milli("6903Mi"), Ok(6903 * 1024 * 1024 * 1000));
        assert_eq!(parse_milli("1e3"), Ok(1_000_000));
        assert_eq!(parse_milli("1E-3"), Ok(1));
        assert_eq!(parse_milli("+4"), Ok(4000));
        assert_eq!(parse_milli("-1"), Ok(-1000));
        assert_eq!(parse_milli("0"), Ok(0));
    }

    #[test]
    fn capped_amounts_print_as_a_lower_bound() {
        assert_eq!(format_milli(i64::MAX, Unit::Bytes), ">8Pi");
        assert_eq!(format_milli(i64::MAX, Unit::Decimal), ">9223372036854775");
        // One below the cap is a real amount and prints as one.
        assert_eq!(format_milli(i64::MAX - 807, Unit::Decimal), "9223372036854775");
        // 8Pi (2^53 bytes) is below the cap, so `>8Pi` is true of every capped value.
        assert!(i128::from(i64::MAX) > (1i128 << 53) * 1000);
    }

    #[test]
    fn rounds_sub_milli_up() {
        assert_eq!(parse_milli("1u"), Ok(1));
        assert_eq!(parse_milli("1n"), Ok(1));
        assert_eq!(parse_milli("0.0001"), Ok(1));
        assert_eq!(parse_milli("1.0001m"), Ok(2));
        assert_eq!(parse_milli("1e-400"), Ok(1));
    }

    #[test]
    fn rejects_bad_input() {
        for bad in ["", "1.5.0", "abc", "1Gb", "1 Gi", "--1", "1e", "1e+", "e3", ".", "1ki", "0x10"] {
            assert!(parse_milli(bad).is_err(), "{bad:?} should be rejected");
        }
        assert!(matches!(parse_milli("1e400"), Err(QuantityError::TooLarge(_))));
        assert!(matches!(parse_milli("99999999999999999999"), Err(QuantityError::TooLarge(_))));
        assert!(matches!(parse_milli("16Ei"), Err(QuantityError::TooLarge(_))));
        assert!(parse_milli("9223372036854775807m").is_ok());
        assert!(parse_milli("9223372036854775808m").is_err());
    }

    #[test]
    fn zero_mantissa_is_zero_at_any_scale() {
        for zero in ["0e400015", "0.000E99999", "-0e5000", "00.00Ei", "0e-400"] {
            assert_eq!(parse_milli(zero), Ok(0), "{zero}");
        }
    }

    #[test]
    fn long_fractions_with_binary_suffixes_are_exact() {
        // 36 significant digits times 2^30 overflowed i128 before dividing (fuzz finding).
        assert_eq!(parse_milli("+.811111111111111111111111211111Gi"), Ok(870_923_923_912));
        assert_eq!(parse_milli(".5Pi"), Ok(562_949_953_421_312_000));
        assert!(matches!(parse_milli(".5Ei"), Err(QuantityError::TooLarge(_))));
        assert_eq!(parse_milli("0.000000000000000000000000000000000001Ei"), Ok(1));
        assert_eq!(parse_milli("0.123456789012345678901234567890123456Ki"), Ok(126_420));
        assert_eq!(parse_milli("-1.5Ki"), Ok(-1_536_000));
    }

    #[test]
    fn leading_fraction_zeros_are_not_significant() {
        let tiny = format!(".{}3", "0".repeat(36));
        assert!(matches!(parse_milli(&format!("{tiny}E96")), Err(QuantityError::TooLarge(_))));
        assert_eq!(parse_milli(&format!("{tiny}E40")), Ok(3_000_000));
        assert_eq!(parse_milli(&format!("{tiny}e37")), Ok(3_000));
        assert_eq!(parse_milli(&tiny), Ok(1), "3e-37 rounds up to 1m");
        assert_eq!(parse_milli(&format!("0{tiny}e-5")), Ok(1));
        assert_eq!(
            parse_milli(&format!(".{}12345678901234567890123456789012345678901e50", "0".repeat(40))),
            Ok(1_234_567_890_124),
            "1234567890.1234…, rounded up"
        );
    }

    #[test]
    fn long_integers_with_negative_exponents_are_small() {
        let long = "01111101111111111111111111111000215323334426900707511153233300";
        assert_eq!(parse_milli(&format!("{long}e-4040040042690070705")), Ok(1), "rounds up to 1m");
        assert_eq!(parse_milli(&format!("{long}e-60")), Ok(1_112));
        assert_eq!(parse_milli(&format!("{}e-40", "1".repeat(40))), Ok(112));
        assert_eq!(parse_milli(&format!("{}.9e-37", "1".repeat(40))), Ok(111_112));
        assert!(matches!(parse_milli(&"1".repeat(40)), Err(QuantityError::TooLarge(_))));
        assert_eq!(parse_milli(&format!("{}e-37", "2".repeat(37))), Ok(223));
    }

    #[test]
    fn formats() {
        assert_eq!(format_milli(1500, Unit::Decimal), "1500m");
        assert_eq!(format_milli(4000, Unit::Decimal), "4");
        assert_eq!(format_milli(64 * (1 << 30) * 1000, Unit::Bytes), "64Gi");
        assert_eq!(format_milli(1536 * (1 << 20) * 1000, Unit::Bytes), "1536Mi");
        assert_eq!(format_milli(1000 * 1000, Unit::Bytes), "1000");
    }
}

//! Parsers from Go's standard library whose exact behaviour Kubernetes and Karpenter inherit
//! (`strconv.ParseInt`, `time.ParseDuration`): a value they refuse is refused here the same way.

/// Splits a leading run of ASCII digits: `("20", "m0s")`.
pub(crate) fn leading_digits(s: &str) -> (&str, &str) {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    s.split_at(n)
}

/// Optional sign and decimal digits: what `strconv.ParseInt` accepts before its range check
/// (so a `None` from `parse_int64` on such text means "value out of range").
pub fn is_integer_syntax(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

/// CEL `int(string)` / Go `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, int64 range.
pub fn parse_int64(s: &str) -> Option<i64> {
    if !is_integer_syntax(s) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// Go `time.ParseDuration`, in nanoseconds: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units
/// ns, us, µs, μs, ms, s, m, h, or the bare `0`. `None` = syntax error or out of int64 range.
pub fn duration_nanos(s: &str) -> Option<i128> {
    const MAX: i128 = i64::MAX as i128;
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let (int, r) = leading_digits(rest);
        let (frac, r) = match r.strip_prefix('.') {
            Some(r) => leading_digits(r),
            None => ("", r),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let unit_len = r.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(r.len());
        let (unit, r) = r.split_at(unit_len);
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        // Long digit runs overflow in Go as well; cap them before multiplying.
        if int.len() > 20 {
            return None;
        }
        let whole: i128 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let mut v = whole.checked_mul(scale)?;
        if v > MAX + 1 {
            return None;
        }
        let mut f_scale = scale;
        for c in frac.bytes() {
            f_scale /= 10;
            v += i128::from(c - b'0') * f_scale;
        }
        total += v;
        if total > MAX + 1 {
            return None;
        }
        rest = r;
    }
    if neg {
        Some(-total)
    } else if total > MAX {
        None
    } else {
        Some(total)
    }
}

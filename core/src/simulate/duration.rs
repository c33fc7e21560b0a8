//! Durations as traces and demand series write them (`90`, `5m`, `1h30m`, `7d`), bounded by the
//! simulator's horizon. Its own file so the trace and the demand series, which the trace embeds,
//! both read durations without importing each other.

use super::settings::MAX_SECONDS;

/// Durations: `90`, `90s`, `5m`, `1h30m`, `7d`. Days are allowed here (Go durations stop at h).
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    let bounded = |n: i64| {
        if n > MAX_SECONDS {
            Err(format!("{s:?} is longer than the simulator's bound of {MAX_SECONDS} s (ten years)"))
        } else {
            Ok(n)
        }
    };
    if let Ok(n) = s.parse::<i64>() {
        return if n >= 0 { bounded(n) } else { Err(format!("{s:?} is negative")) };
    }
    let mut total: i64 = 0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(format!("{s:?} is not a duration")),
        };
        let n: i64 = num.parse().map_err(|_| format!("{s:?} is not a duration"))?;
        total = n.checked_mul(unit).and_then(|v| total.checked_add(v)).ok_or_else(|| format!("{s:?} is too long"))?;
        num.clear();
    }
    if !num.is_empty() {
        return Err(format!("{s:?} is not a duration (a number needs a unit after another unit, e.g. 1h30m)"));
    }
    bounded(total)
}

pub const DURATION_HELP: &str = "a duration such as 90s, 5m, 1h30m or 7d (a bare number is seconds)";

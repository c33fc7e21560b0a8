//! Runtime parse of budget schedules (§3.2 NOTE): Karpenter calls robfig/cron v3
//! `ParseStandard("TZ=UTC " + schedule)`. The admission pattern (NP-15) is loose — `@dailyX`,
//! `0 0 * * tue-mon` or any five whitespace-separated words pass it — and a schedule the parser
//! rejects makes the budget, and the whole NodePool, allow zero disruptions (fail closed).
//! This mirrors the parser closely enough to report the same failures with the same wording.

use super::patterns::{go_duration_nanos, parse_int64};

struct Bounds {
    min: i64,
    max: i64,
    names: &'static [(&'static str, i64)],
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[] };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[] };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[] };
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds { min: 0, max: 6, names: &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)] };

/// The parser's error for `schedule`, or `None` when it parses.
pub(super) fn cron_error(schedule: &str) -> Option<String> {
    // "TZ=UTC " is stripped again by the parser, which then trims the rest.
    let spec = schedule.trim();
    if spec.is_empty() {
        return Some("empty spec string".to_string());
    }
    if spec.starts_with('@') {
        return descriptor_error(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Some(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
    }
    let bounds = [&MINUTES, &HOURS, &DOM, &MONTHS, &DOW];
    fields.iter().zip(bounds).find_map(|(f, b)| f.split(',').find_map(|expr| range_error(expr, b)))
}

fn descriptor_error(spec: &str) -> Option<String> {
    const EXACT: [&str; 7] = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];
    if EXACT.contains(&spec) {
        return None;
    }
    if let Some(d) = spec.strip_prefix("@every ") {
        return match go_duration_nanos(d) {
            Some(_) => None,
            None => Some(format!("failed to parse duration {spec}: time: invalid duration \"{d}\"")),
        };
    }
    Some(format!("unrecognized descriptor: {spec}"))
}

/// Go `strconv.Atoi` + the parser's non-negative check.
fn int(expr: &str) -> Result<i64, String> {
    match parse_int64(expr) {
        None => Err(format!("failed to parse int from {expr}: strconv.Atoi: parsing \"{expr}\": invalid syntax")),
        Some(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {expr}")),
        Some(n) => Ok(n),
    }
}

fn int_or_name(expr: &str, b: &Bounds) -> Result<i64, String> {
    let lower = expr.to_ascii_lowercase();
    match b.names.iter().find(|(n, _)| *n == lower) {
        Some((_, v)) => Ok(*v),
        None => int(expr),
    }
}

/// robfig/cron `getRange` for one comma-separated element.
fn range_error(expr: &str, b: &Bounds) -> Option<String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step.first().copied().unwrap_or("").split('-').collect();
    let (start, mut end) = if matches!(low_high.first(), Some(&"*") | Some(&"?")) {
        // A star ignores anything after a hyphen, as upstream does.
        (b.min, b.max)
    } else {
        let start = match int_or_name(low_high.first().copied().unwrap_or(""), b) {
            Ok(v) => v,
            Err(e) => return Some(e),
        };
        match low_high.as_slice() {
            [_] => (start, start),
            [_, hi] => match int_or_name(hi, b) {
                Ok(v) => (start, v),
                Err(e) => return Some(e),
            },
            _ => return Some(format!("too many hyphens: {expr}")),
        }
    };
    let step = match range_and_step.as_slice() {
        [_] => 1,
        [_, s] => {
            let step = match int(s) {
                Ok(v) => v,
                Err(e) => return Some(e),
            };
            if low_high.len() == 1 {
                end = b.max; // "N/step" means "N-max/step"
            }
            step
        }
        _ => return Some(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Some(format!("beginning of range ({start}) below minimum ({}): {expr}", b.min));
    }
    if end > b.max {
        return Some(format!("end of range ({end}) above maximum ({}): {expr}", b.max));
    }
    if start > end {
        return Some(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Some(format!("step of range should be a positive number: {expr}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::cron_error;

    #[test]
    fn standard_parser() {
        for ok in
            ["* * * * *", "0 9 * * mon-fri", "@annually", "@daily", " @weekly ", "*/5 0-23/2 1,15 JAN-jun ?", "0 0 * * 6", "@every 1h30m"]
        {
            assert_eq!(cron_error(ok), None, "{ok}");
        }
        let cases = [
            ("0 0 * * tue-mon", "beginning of range (2) beyond end of range (1): tue-mon"),
            ("@dailyX", "unrecognized descriptor: @dailyX"),
            ("a b c d e", "failed to parse int from a"),
            ("60 * * * *", "end of range (60) above maximum (59): 60"),
            ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("* * * * 7", "end of range (7) above maximum (6): 7"),
            ("*/0 * * * *", "step of range should be a positive number: */0"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("x * * * * *", "expected exactly 5 fields, found 6"),
        ];
        for (spec, want) in cases {
            let got = cron_error(spec).unwrap_or_default();
            assert!(got.starts_with(want), "{spec}: {got}");
        }
    }
}

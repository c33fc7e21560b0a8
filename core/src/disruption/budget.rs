//! Disruption budgets (spec §7): cron schedule windows evaluated at an injected `now` (UTC).

use crate::model::{Budget, BudgetNodes};

/// A parsed 5-field cron schedule (robfig/cron `ParseStandard` semantics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
    /// robfig: when both day fields are restricted, a day matches if either does.
    dom_star: bool,
    dow_star: bool,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

fn field(expr: &str, min: u32, max: u32, names: &[&str], name_base: u32) -> Result<(u64, bool), String> {
    let mut bits = 0u64;
    let mut star = false;
    for part in expr.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, Some(s.parse::<u32>().map_err(|_| format!("bad step in {part:?}"))?)),
            None => (part, None),
        };
        let value = |t: &str| -> Result<u32, String> {
            if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(t)) {
                return Ok(i as u32 + name_base);
            }
            t.parse::<u32>().map_err(|_| format!("{t:?} is not a number"))
        };
        let (lo, hi) = if range == "*" || range == "?" {
            if step.is_none() {
                star = true;
            }
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            (value(a)?, value(b)?)
        } else {
            let v = value(range)?;
            (v, if step.is_some() { max } else { v })
        };
        if lo < min || hi > max {
            return Err(format!("{part:?} is out of range [{min}, {max}]"));
        }
        if lo > hi {
            return Err(format!("beginning of range ({lo}) beyond end of range ({hi})"));
        }
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(format!("step of range should be a positive number: {part:?}"));
        }
        let mut v = lo;
        while v <= hi {
            bits |= 1 << v;
            v += step;
        }
    }
    Ok((bits, star))
}

impl Schedule {
    pub fn parse(s: &str) -> Result<Schedule, String> {
        let s = s.trim();
        let spec = match s.to_ascii_lowercase().as_str() {
            "@yearly" | "@annually" => "0 0 1 1 *".to_string(),
            "@monthly" => "0 0 1 * *".to_string(),
            "@weekly" => "0 0 * * 0".to_string(),
            "@daily" | "@midnight" => "0 0 * * *".to_string(),
            "@hourly" => "0 * * * *".to_string(),
            other if other.starts_with('@') => return Err(format!("unrecognized descriptor: {s}")),
            _ => s.to_string(),
        };
        let f: Vec<&str> = spec.split_whitespace().collect();
        if f.len() != 5 {
            return Err(format!("expected exactly 5 fields, found {}: {s:?}", f.len()));
        }
        let (minute, _) = field(f[0], 0, 59, &[], 0)?;
        let (hour, _) = field(f[1], 0, 23, &[], 0)?;
        let (dom, dom_star) = field(f[2], 1, 31, &[], 0)?;
        let (month, _) = field(f[3], 1, 12, &MONTHS, 1)?;
        let (mut dow, dow_star) = field(f[4], 0, 7, &DAYS, 0)?;
        if dow & (1 << 7) != 0 {
            dow |= 1; // 7 = Sunday
        }
        Ok(Schedule { minute, hour, dom, month, dow, dom_star, dow_star })
    }

    /// Does the schedule fire at unix second `t` (a whole minute)?
    pub fn fires_at(&self, t: i64) -> bool {
        let days = t.div_euclid(86_400);
        let secs = t.rem_euclid(86_400);
        let (_, month, day) = civil_from_days(days);
        let dow = (days + 4).rem_euclid(7) as u32;
        let hit = |bits: u64, v: u32| bits & (1 << v) != 0;
        let dom_ok = hit(self.dom, day);
        let dow_ok = hit(self.dow, dow);
        let day_ok = if self.dom_star || self.dow_star { dom_ok && dow_ok } else { dom_ok || dow_ok };
        hit(self.minute, (secs / 60 % 60) as u32) && hit(self.hour, (secs / 3600) as u32) && hit(self.month, month) && day_ok
    }

    /// Active window (D-7.2.3): some hit lies in `(now − duration, now]`.
    pub fn active(&self, now: i64, duration: i64) -> bool {
        if duration <= 0 {
            return false;
        }
        // Longer windows than ~2 years contain a hit of any valid schedule.
        let duration = duration.min(2 * 366 * 86_400);
        let checkpoint = now - duration;
        let mut t = (checkpoint.div_euclid(60) + 1) * 60;
        while t <= now {
            if self.fires_at(t) {
                return true;
            }
            t += 60;
        }
        false
    }
}

/// Howard Hinnant's civil-from-days: (year, month 1..12, day 1..31).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Allowed disruptions for one reason (D-7.3): min over active budgets that apply; `None` =
/// unlimited. Any schedule error makes the whole pool allow 0 (fail closed, D-7.3.2).
pub fn allowed(budgets: &[Budget], reason: &str, nodes: usize, now: i64) -> Option<i64> {
    let mut out: Option<i64> = None;
    for b in budgets {
        let active = match (&b.schedule, b.duration) {
            (None, None) => true,
            (Some(s), d) => match Schedule::parse(s) {
                Ok(sched) => sched.active(now, d.unwrap_or(0)),
                Err(_) => return Some(0),
            },
            (None, Some(_)) => true,
        };
        let applies = b.reasons.is_empty() || b.reasons.iter().any(|r| r == reason);
        if !active || !applies {
            continue;
        }
        let v = match b.nodes {
            BudgetNodes::Count(c) => i64::from(c),
            BudgetNodes::Percent(p) => (i64::from(p) * nodes as i64 + 99) / 100,
        };
        out = Some(out.map_or(v, |o: i64| o.min(v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> i64 {
        s.parse::<jiff::Timestamp>().unwrap().as_second()
    }

    #[test]
    fn windows_from_the_spec() {
        let yearly = Schedule::parse("@yearly").unwrap();
        assert!(yearly.active(ts("2024-01-01T12:00:00Z"), 24 * 3600));
        let daily = Schedule::parse("@daily").unwrap();
        assert!(daily.active(ts("2024-01-07T00:00:00Z"), 48 * 3600));
        let sunday = Schedule::parse("30 6 * * SUN").unwrap();
        assert!(!sunday.active(ts("2024-01-07T00:00:00Z"), 6 * 3600));
        assert!(!daily.active(ts("2024-01-07T23:00:00Z"), 30 * 60));
        let business = Schedule::parse("0 9 * * 1-5").unwrap();
        assert!(business.active(ts("2025-03-05T12:00:00Z"), 8 * 3600)); // a Wednesday
        assert!(!business.active(ts("2025-03-08T12:00:00Z"), 8 * 3600)); // a Saturday
        assert!(!business.active(ts("2025-03-05T17:00:00Z"), 8 * 3600)); // window end is exclusive
    }

    #[test]
    fn invalid_schedules() {
        assert!(Schedule::parse("0 0 * * tue-mon").is_err());
        assert!(Schedule::parse("@dailyX").is_err());
        assert!(Schedule::parse("* * * *").is_err());
        assert!(Schedule::parse("61 * * * *").is_err());
    }

    #[test]
    fn budgets_combine_per_reason() {
        let b = |nodes, reasons: &[&str]| Budget {
            nodes,
            reasons: reasons.iter().map(|s| s.to_string()).collect(),
            schedule: None,
            duration: None,
        };
        let budgets = vec![
            b(BudgetNodes::Count(10), &[]),
            b(BudgetNodes::Percent(100), &[]),
            b(BudgetNodes::Count(5), &["Drifted"]),
            b(BudgetNodes::Count(4), &["Empty"]),
        ];
        assert_eq!(allowed(&budgets, "Empty", 100, 0), Some(4));
        assert_eq!(allowed(&budgets, "Drifted", 100, 0), Some(5));
        assert_eq!(allowed(&budgets, "Underutilized", 100, 0), Some(10));
        assert_eq!(allowed(&[b(BudgetNodes::Percent(50), &[])], "Empty", 3, 0), Some(2));
        assert_eq!(allowed(&[b(BudgetNodes::Percent(10), &[])], "Empty", 0, 0), Some(0));
        assert_eq!(allowed(&[], "Empty", 3, 0), None);
        let bad = Budget {
            nodes: BudgetNodes::Count(5),
            reasons: vec!["Drifted".into()],
            schedule: Some("0 0 * * tue-mon".into()),
            duration: Some(3600),
        };
        assert_eq!(allowed(&[bad], "Empty", 3, 0), Some(0));
    }
}

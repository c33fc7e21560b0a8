//! Budget schedules, the one implementation used by validation and by the disruption decision.
//!
//! Karpenter evaluates a budget's `schedule` with robfig/cron v3's standard parser
//! (`ParseStandard("TZ=UTC " + schedule)`) and asks for the next hit after `now − duration`: the
//! budget is active when that hit is not after `now`. The behaviours that matter and that a
//! hand-rolled evaluator gets wrong, all reproduced here:
//! - fields split on commas with empty pieces dropped; `*` or `?` before a hyphen ignores the
//!   rest (`*-5` is `*`); `N/step` runs to the field's maximum; a step above 1 clears the "star"
//!   marker that switches day matching from OR to AND; day of week is 0..=6 (7 is an error);
//!   descriptors are case-sensitive; `@every D` is a constant delay;
//! - the search for the next hit looks at most five calendar years ahead; a schedule that never
//!   fires (`0 0 30 2 *`) yields the zero time, which is "not after now": Karpenter treats such
//!   a budget as always active;
//! - the search steps by month, day, hour, minute, so it costs at most a few thousand steps
//!   whatever the duration (a minute-by-minute scan of a long window took seconds).
//!
//! Time is whole seconds since the Unix epoch, UTC.

use std::fmt;

/// A parse error, worded as the parser words it (Karpenter logs that wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronError(pub String);

impl fmt::Display for CronError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

const STAR: u64 = 1 << 63;

struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
    /// Value of `names[0]`.
    first_name: u64,
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[], first_name: 0 };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[], first_name: 0 };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[], first_name: 0 };
const MONTHS: Bounds =
    Bounds { min: 1, max: 12, names: &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], first_name: 1 };
const DOW: Bounds = Bounds { min: 0, max: 6, names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"], first_name: 0 };

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    /// Bit sets per field (bit 63 = the field was `*`/`?`).
    Spec { minute: u64, hour: u64, dom: u64, month: u64, dow: u64 },
    /// `@every D`: a hit every `D` seconds after any instant (at least one second).
    Every(i64),
}

impl Schedule {
    /// Parse as Karpenter does (`TZ=UTC ` is implied; the parser trims what follows it).
    pub fn parse(schedule: &str) -> Result<Schedule, CronError> {
        let spec = schedule.trim();
        if let Some(d) = spec.strip_prefix('@') {
            return descriptor(d, spec);
        }
        let fields: Vec<&str> = spec.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(CronError(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" "))));
        }
        Ok(Schedule::Spec {
            minute: field(fields[0], &MINUTES)?,
            hour: field(fields[1], &HOURS)?,
            dom: field(fields[2], &DOM)?,
            month: field(fields[3], &MONTHS)?,
            dow: field(fields[4], &DOW)?,
        })
    }

    /// The first hit strictly after `t` (from the next whole second on); `None` is the parser's
    /// zero time: no hit within five years.
    pub fn next(&self, t: i64) -> Option<i64> {
        match *self {
            Schedule::Every(delay) => t.checked_add(delay),
            Schedule::Spec { minute, hour, dom, month, dow } => next_hit(t + 1, minute, hour, dom, month, dow),
        }
    }
}

/// When a disruption budget applies, decided once when the NodePool is lowered: the schedule is
/// parsed here and never again, however many disruption passes (a simulation runs thousands)
/// ask [`BudgetWindow::active`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetWindow {
    /// No schedule and no duration: the budget always applies.
    Always,
    /// Active from each hit of `schedule` for `duration` seconds.
    Scheduled {
        /// The parsed schedule.
        schedule: Schedule,
        /// Seconds (a missing duration is 0, as Karpenter reads it).
        duration: i64,
    },
    /// A schedule the parser rejects (or a duration without one: the empty schedule). Karpenter
    /// fails closed: the pool allows no disruptions at all.
    Unparsable(CronError),
}

impl BudgetWindow {
    /// Karpenter's budget activity: no schedule and no duration is always active; otherwise the
    /// schedule is parsed (a missing one is the empty schedule, a parse error).
    pub fn new(schedule: Option<&str>, duration_seconds: Option<i64>) -> BudgetWindow {
        if schedule.is_none() && duration_seconds.is_none() {
            return BudgetWindow::Always;
        }
        match Schedule::parse(schedule.unwrap_or("")) {
            Ok(schedule) => BudgetWindow::Scheduled { schedule, duration: duration_seconds.unwrap_or(0) },
            Err(e) => BudgetWindow::Unparsable(e),
        }
    }

    /// Whether the budget applies at `now`: the next hit after `now − duration` is not after
    /// `now` (the zero time of a schedule that never fires counts as not after).
    pub fn active(&self, now: i64) -> Result<bool, &CronError> {
        match self {
            BudgetWindow::Always => Ok(true),
            BudgetWindow::Scheduled { schedule, duration } => {
                let checkpoint = now.saturating_sub(*duration);
                Ok(schedule.next(checkpoint).is_none_or(|hit| hit <= now))
            }
            BudgetWindow::Unparsable(e) => Err(e),
        }
    }
}

/// [`BudgetWindow::new`] then [`BudgetWindow::active`], for one-off questions (tests).
#[cfg(test)]
pub fn budget_active(schedule: Option<&str>, duration_seconds: Option<i64>, now: i64) -> Result<bool, CronError> {
    BudgetWindow::new(schedule, duration_seconds).active(now).map_err(Clone::clone)
}

fn descriptor(name: &str, spec: &str) -> Result<Schedule, CronError> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR;
    let spec_of = |minute, hour, dom, month, dow| Ok(Schedule::Spec { minute, hour, dom, month, dow });
    match name {
        "yearly" | "annually" => spec_of(1, 1, 1 << 1, 1 << 1, all(&DOW)),
        "monthly" => spec_of(1, 1, 1 << 1, all(&MONTHS), all(&DOW)),
        "weekly" => spec_of(1, 1, all(&DOM), all(&MONTHS), 1),
        "daily" | "midnight" => spec_of(1, 1, all(&DOM), all(&MONTHS), all(&DOW)),
        "hourly" => spec_of(1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        _ => match name.strip_prefix("every ") {
            Some(d) => match crate::golang::duration_nanos(d) {
                // The delay is whole seconds, at least one.
                Some(n) => Ok(Schedule::Every(((n / 1_000_000_000) as i64).max(1))),
                None => Err(CronError(format!("failed to parse duration {spec}: time: invalid duration \"{d}\""))),
            },
            None => Err(CronError(format!("unrecognized descriptor: {spec}"))),
        },
    }
}

fn bits(min: u64, max: u64, step: u64) -> u64 {
    let mut b = 0;
    let mut i = min;
    while i <= max {
        b |= 1 << i;
        i = match i.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
    b
}

fn field(text: &str, b: &Bounds) -> Result<u64, CronError> {
    // Empty pieces (`1,,2`, a lone `,`) are dropped, not errors.
    text.split(',').filter(|r| !r.is_empty()).try_fold(0, |acc, r| Ok(acc | range(r, b)?))
}

/// Go `strconv.Atoi` plus the parser's non-negative check.
fn number(text: &str) -> Result<u64, CronError> {
    match crate::golang::parse_int64(text) {
        Some(n) if n < 0 => Err(CronError(format!("negative number ({n}) not allowed: {text}"))),
        Some(n) => Ok(n as u64),
        None => {
            let why = if crate::golang::is_integer_syntax(text) { "value out of range" } else { "invalid syntax" };
            Err(CronError(format!("failed to parse int from {text}: strconv.Atoi: parsing {text:?}: {why}")))
        }
    }
}

fn number_or_name(text: &str, b: &Bounds) -> Result<u64, CronError> {
    let lower = text.to_ascii_lowercase();
    match b.names.iter().position(|n| *n == lower) {
        Some(i) => Ok(i as u64 + b.first_name),
        None => number(text),
    }
}

fn range(expr: &str, b: &Bounds) -> Result<u64, CronError> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end, mut star) = if low_high[0] == "*" || low_high[0] == "?" {
        (b.min, b.max, STAR)
    } else {
        let start = number_or_name(low_high[0], b)?;
        match low_high.len() {
            1 => (start, start, 0),
            2 => (start, number_or_name(low_high[1], b)?, 0),
            _ => return Err(CronError(format!("too many hyphens: {expr}"))),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = number(range_and_step[1])?;
            if low_high.len() == 1 {
                end = b.max; // `N/step` runs from N to the maximum
            }
            if step > 1 {
                star = 0;
            }
            step
        }
        _ => return Err(CronError(format!("too many slashes: {expr}"))),
    };
    if start < b.min {
        return Err(CronError(format!("beginning of range ({start}) below minimum ({}): {expr}", b.min)));
    }
    if end > b.max {
        return Err(CronError(format!("end of range ({end}) above maximum ({}): {expr}", b.max)));
    }
    if start > end {
        return Err(CronError(format!("beginning of range ({start}) beyond end of range ({end}): {expr}")));
    }
    if step == 0 {
        return Err(CronError(format!("step of range should be a positive number: {expr}")));
    }
    Ok(bits(start, end, step) | star)
}

/// A UTC instant split into calendar fields.
#[derive(Clone, Copy)]
struct Civil {
    year: i64,
    month: u32,
    day: u32,
    secs: i64, // seconds into the day
}

impl Civil {
    fn of(t: i64) -> Civil {
        let (year, month, day) = civil_from_days(t.div_euclid(86_400));
        Civil { year, month, day, secs: t.rem_euclid(86_400) }
    }

    fn at(year: i64, month: u32, day: u32, secs: i64) -> i64 {
        days_from_civil(year, month, day) * 86_400 + secs
    }
}

fn has(set: u64, v: i64) -> bool {
    set & (1 << v) != 0
}

/// The parser's search, field by field from the month down; each field that has to move first
/// resets the smaller ones, and a wrap of a field restarts from the month.
fn next_hit(start: i64, minute: u64, hour: u64, dom: u64, month: u64, dow: u64) -> Option<i64> {
    let mut t = start;
    let year_limit = Civil::of(t).year + 5;
    let mut reset = false;
    let day_matches = |t: i64| {
        let c = Civil::of(t);
        let weekday = (t.div_euclid(86_400) + 4).rem_euclid(7); // 1970-01-01 was a Thursday
        let (dom_ok, dow_ok) = (has(dom, i64::from(c.day)), has(dow, weekday));
        if dom & STAR != 0 || dow & STAR != 0 {
            dom_ok && dow_ok
        } else {
            dom_ok || dow_ok
        }
    };
    'wrap: loop {
        if Civil::of(t).year > year_limit {
            return None;
        }
        while !has(month, i64::from(Civil::of(t).month)) {
            let c = Civil::of(t);
            if !reset {
                reset = true;
                t = Civil::at(c.year, c.month, 1, 0);
            }
            let c = Civil::of(t);
            let (y, m) = if c.month == 12 { (c.year + 1, 1) } else { (c.year, c.month + 1) };
            t = Civil::at(y, m, c.day, c.secs);
            if m == 1 {
                continue 'wrap;
            }
        }
        while !day_matches(t) {
            if !reset {
                reset = true;
                t -= t.rem_euclid(86_400);
            }
            t += 86_400;
            if Civil::of(t).day == 1 {
                continue 'wrap;
            }
        }
        while !has(hour, t.rem_euclid(86_400) / 3600) {
            if !reset {
                reset = true;
                t -= t.rem_euclid(3600);
            }
            t += 3600;
            if t.rem_euclid(86_400) / 3600 == 0 {
                continue 'wrap;
            }
        }
        while !has(minute, t.rem_euclid(3600) / 60) {
            if !reset {
                reset = true;
                t -= t.rem_euclid(60);
            }
            t += 60;
            if t.rem_euclid(3600) / 60 == 0 {
                continue 'wrap;
            }
        }
        // The standard parser's seconds field is `0`.
        while t.rem_euclid(60) != 0 {
            if !reset {
                reset = true;
            }
            t += 1;
            if t.rem_euclid(60) == 0 {
                continue 'wrap;
            }
        }
        return Some(t);
    }
}

/// Howard Hinnant's days-from-civil (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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

#[cfg(test)]
mod tests;

//! What every price document reader shares (`prices`, `auto_mode_fee`): where an entry was
//! read, for errors found when it is applied; one price value; a short list of names for notes.
//! Its own file so the readers do not import each other (prices routes fee tables to
//! `auto_mode_fee`, which needs these).

use super::MAX_PRICE;
use crate::error::InputError;
use crate::manifest::reader::{At, Sink};
use std::collections::BTreeSet;

/// Where an entry was read, for errors found when applying it.
#[derive(Debug, Clone)]
pub struct Origin {
    pub document: usize,
    pub source: Option<String>,
    pub object: &'static str,
    pub path: String,
}

impl Origin {
    pub(super) fn error(&self, code: &str, message: String, help: &str) -> InputError {
        let mut e = InputError::new(code, message).at_document(self.document).object(self.object).path(self.path.clone()).help(help);
        e.source = self.source.clone();
        e
    }
}

/// A price: a number or a numeric string (the AWS CLI prints `"0.412300"`), finite, 0..=1e9.
pub(super) fn price(at: &At, sink: &mut Sink) -> Option<f64> {
    const EXPECTED: &str = "a price from 0 to 1e9 per hour, e.g. \"0.4123\"";
    let x = match at.v {
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
        serde_json::Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match x {
        Some(x) if x.is_finite() && (0.0..=MAX_PRICE).contains(&x) => Some(x),
        _ => {
            sink.error(at, "invalid-number", format!("{} is not a price", crate::manifest::reader::render_short(at.v)), EXPECTED);
            None
        }
    }
}

/// A few names and a count, for notes: `a, b, c and 12 more`.
pub(super) fn some(names: &BTreeSet<String>) -> String {
    let first: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
    let more = names.len().saturating_sub(first.len());
    if more > 0 {
        format!("{} and {more} more", first.join(", "))
    } else {
        first.join(", ")
    }
}

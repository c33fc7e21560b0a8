//! Taints and tolerations (spec §3).

use serde::{Deserialize, Serialize};
use std::fmt;

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Effect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

impl Effect {
    pub fn parse(s: &str) -> Option<Effect> {
        match s {
            "NoSchedule" => Some(Effect::NoSchedule),
            "PreferNoSchedule" => Some(Effect::PreferNoSchedule),
            "NoExecute" => Some(Effect::NoExecute),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::NoSchedule => "NoSchedule",
            Effect::PreferNoSchedule => "PreferNoSchedule",
            Effect::NoExecute => "NoExecute",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: Effect,
}

impl fmt::Display for Taint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect.as_str())
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect.as_str())
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TolerationOp {
    Equal,
    Exists,
    Lt,
    Gt,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Toleration {
    /// Empty = any key (only meaningful with Exists).
    pub key: String,
    pub operator: TolerationOp,
    pub value: String,
    /// None = every effect.
    pub effect: Option<Effect>,
}

impl Toleration {
    /// The toleration the last relaxation step adds (R3.4, R5.13.1 step 6).
    pub fn prefer_no_schedule() -> Self {
        Toleration { key: String::new(), operator: TolerationOp::Exists, value: String::new(), effect: Some(Effect::PreferNoSchedule) }
    }

    /// R3.1.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if self.effect.is_some_and(|e| e != taint.effect) {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator {
            TolerationOp::Exists => true,
            TolerationOp::Equal => self.value == taint.value,
            TolerationOp::Lt | TolerationOp::Gt => match (taint.value.parse::<i64>(), self.value.parse::<i64>()) {
                (Ok(t), Ok(v)) => {
                    if self.operator == TolerationOp::Lt {
                        t < v
                    } else {
                        t > v
                    }
                }
                _ => false,
            },
        }
    }
}

/// The first taint of `taints` that no toleration tolerates (R3.2), if any.
pub fn first_untolerated<'a>(taints: &'a [Taint], tolerations: &[Toleration]) -> Option<&'a Taint> {
    taints.iter().find(|t| !tolerations.iter().any(|tol| tol.tolerates(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(k: &str, v: &str, e: Effect) -> Taint {
        Taint { key: k.into(), value: v.into(), effect: e }
    }

    #[test]
    fn spec_example_8_29() {
        let t = [taint("nvidia.com/gpu", "true", Effect::NoSchedule)];
        let tols = [
            Toleration {
                key: "nvidia.com/gpu".into(),
                operator: TolerationOp::Equal,
                value: "true".into(),
                effect: Some(Effect::NoSchedule),
            },
            Toleration {
                key: "nvidia.com/gpu".into(),
                operator: TolerationOp::Exists,
                value: String::new(),
                effect: Some(Effect::NoSchedule),
            },
            Toleration { key: "nvidia.com/gpu".into(), operator: TolerationOp::Exists, value: String::new(), effect: None },
            Toleration { key: String::new(), operator: TolerationOp::Exists, value: String::new(), effect: None },
        ];
        for tol in &tols {
            assert!(first_untolerated(&t, std::slice::from_ref(tol)).is_none());
        }
        let wrong = Toleration { key: "nvidia.com/gpu".into(), operator: TolerationOp::Equal, value: "false".into(), effect: None };
        assert!(first_untolerated(&t, &[wrong]).is_some());
        assert!(first_untolerated(&t, &[]).is_some());
        assert!(!Toleration::prefer_no_schedule().tolerates(&t[0]));
        assert!(Toleration::prefer_no_schedule().tolerates(&taint("a", "", Effect::PreferNoSchedule)));
    }
}

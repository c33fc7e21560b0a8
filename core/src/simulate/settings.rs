//! Simulation settings (`request.simulation`) with the defaults the GPU guides and Karpenter use.

use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// An inclusive range of whole seconds, sampled uniformly per NodeClaim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondsRange {
    pub min: i64,
    pub max: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SimSettings {
    pub seed: u64,
    /// Launch → Node registered, for instance types with GPUs or other accelerators (3–5 min:
    /// launch, cluster join, driver start).
    pub gpu_startup_seconds: SecondsRange,
    /// Launch → Node registered, other instance types (1–2 min).
    pub startup_seconds: SecondsRange,
    /// Registered → initialized on accelerator nodes: the device plugin registering the devices.
    pub device_plugin_seconds: SecondsRange,
    pub batch_idle_seconds: i64,
    pub batch_max_seconds: i64,
    pub disruption_poll_seconds: i64,
    /// Poisson rate of spot interruption notices per spot instance-hour.
    pub spot_interruption_rate_per_hour: f64,
    pub interruption_notice_seconds: i64,
    /// Used when the NodePool template has no `terminationGracePeriod`; None = wait for pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    pub metrics_interval_seconds: i64,
    /// Overrides the trace's `end` (seconds from the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_seconds: Option<i64>,
    pub max_events: u64,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            seed: 0,
            gpu_startup_seconds: SecondsRange { min: 180, max: 300 },
            startup_seconds: SecondsRange { min: 60, max: 120 },
            device_plugin_seconds: SecondsRange { min: 60, max: 90 },
            batch_idle_seconds: 1,
            batch_max_seconds: 10,
            disruption_poll_seconds: 10,
            // AWS Spot Instance Advisor's lowest bucket is "<5 % of instances interrupted a month";
            // 5 % / 730 h ≈ 7e-5 per instance-hour, rounded up.
            spot_interruption_rate_per_hour: 0.0001,
            interruption_notice_seconds: 120,
            termination_grace_period_seconds: None,
            metrics_interval_seconds: 300,
            end_seconds: None,
            max_events: 5_000_000,
        }
    }
}

impl SimSettings {
    /// Reject settings that would make the simulation meaningless or endless, located under
    /// `simulation.<field>`.
    pub fn check(&self) -> Result<(), Vec<InputError>> {
        let mut errors = Vec::new();
        let mut bad = |field: &str, msg: String, help: &str| {
            errors.push(InputError::new("invalid-setting", msg).path(format!("simulation.{field}")).help(help.to_string()));
        };
        for (field, r) in [
            ("gpuStartupSeconds", self.gpu_startup_seconds),
            ("startupSeconds", self.startup_seconds),
            ("devicePluginSeconds", self.device_plugin_seconds),
        ] {
            if r.min < 0 || r.max < r.min {
                bad(field, format!("range {}..{} is not a range of seconds ≥ 0", r.min, r.max), "{min: 60, max: 120} with 0 ≤ min ≤ max");
            }
        }
        for (field, v, min) in [
            ("batchIdleSeconds", self.batch_idle_seconds, 0),
            ("batchMaxSeconds", self.batch_max_seconds, 0),
            ("disruptionPollSeconds", self.disruption_poll_seconds, 1),
            ("interruptionNoticeSeconds", self.interruption_notice_seconds, 0),
            ("metricsIntervalSeconds", self.metrics_interval_seconds, 1),
        ] {
            if v < min {
                bad(field, format!("{v} is below {min}"), "a whole number of seconds");
            }
        }
        if !(self.spot_interruption_rate_per_hour.is_finite() && self.spot_interruption_rate_per_hour >= 0.0) {
            bad("spotInterruptionRatePerHour", format!("{} is not a rate ≥ 0", self.spot_interruption_rate_per_hour), "e.g. 0.0001");
        }
        if self.termination_grace_period_seconds.is_some_and(|v| v < 0) {
            bad("terminationGracePeriodSeconds", "must be ≥ 0".into(), "seconds");
        }
        if self.end_seconds.is_some_and(|v| v <= 0) {
            bad("endSeconds", "must be > 0".into(), "seconds from the trace start");
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

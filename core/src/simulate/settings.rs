//! Simulation settings (`request.simulation`) with the defaults the GPU guides and Karpenter use.

use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// The longest time any simulated value may span: ten years of seconds. Every duration a user
/// gives (settings, trace times, run times, repeats) is checked against it, so that a sum of a
/// few of them can never overflow an `i64` and the clock arithmetic needs no checks of its own.
pub const MAX_SECONDS: i64 = 10 * 366 * 86_400;

/// The highest spot interruption rate accepted: one notice per minute of spot capacity. Above
/// it every node would be interrupted before it registers; the bound also keeps the number of
/// interruption events proportional to simulated instance-minutes.
pub const MAX_INTERRUPTION_RATE_PER_HOUR: f64 = 60.0;

/// The highest capacity-block price accepted, USD per instance-hour (EC2's are below 100).
pub const MAX_CAPACITY_BLOCK_PRICE: f64 = 100_000.0;

/// An inclusive range of whole seconds, sampled uniformly per NodeClaim.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondsRange {
    /// Shortest duration, in seconds.
    pub min: i64,
    /// Longest duration, in seconds (≥ `min`).
    pub max: i64,
}

/// The knobs of `simulate` (`request.simulation`); every field has a default, and the answer repeats them all as resolved.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SimSettings {
    /// Seed of every random draw (startup times, run times, interruptions); same seed, same run.
    pub seed: u64,
    /// Launch → Node registered, for instance types with GPUs or other accelerators (3–5 min:
    /// launch, cluster join, driver start).
    pub gpu_startup_seconds: SecondsRange,
    /// Launch → Node registered, other instance types (1–2 min).
    pub startup_seconds: SecondsRange,
    /// Registered → initialized on accelerator nodes: the device plugin registering the devices.
    pub device_plugin_seconds: SecondsRange,
    /// Seconds the provisioner waits with no new pending pod before it plans (Karpenter's batch idle duration, 1 s).
    pub batch_idle_seconds: i64,
    /// Longest a provisioning batch may keep growing, seconds (Karpenter's batch max duration, 10 s).
    pub batch_max_seconds: i64,
    /// Seconds between two passes of the disruption controller.
    pub disruption_poll_seconds: i64,
    /// Poisson rate of spot interruption notices per spot instance-hour.
    pub spot_interruption_rate_per_hour: f64,
    /// Warning time a spot interruption gives before the instance goes, seconds (EC2 gives 120).
    pub interruption_notice_seconds: i64,
    /// Used when the NodePool template has no `terminationGracePeriod`; None = wait for pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    /// Seconds between two samples of `series`.
    pub metrics_interval_seconds: i64,
    /// Overrides the trace's `end` (seconds from the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_seconds: Option<i64>,
    /// Safety stop: the most events one run may process before it fails.
    pub max_events: u64,
    /// Safety stop on scheduling work: the pending pods summed over every provisioning pass.
    /// Each pass re-schedules every pending pod (as Karpenter does), so pods that wait long
    /// (behind a limit) make the work grow with the square of the queue; this bounds the time.
    pub max_pod_attempts: u64,
    /// What a capacity block costs, in USD per instance-hour, by reservation id: the prepaid
    /// price is not in the `describe-capacity-reservations` output (it is the block's upfront
    /// fee ÷ instances ÷ hours). Without it a block's committed cost is unknown.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub capacity_block_prices: std::collections::BTreeMap<String, f64>,
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
            // About 1.5 us per attempt on a 2-core VM: ~30 s.
            max_pod_attempts: 20_000_000,
            capacity_block_prices: std::collections::BTreeMap::new(),
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
            if r.min < 0 || r.max < r.min || r.max > MAX_SECONDS {
                bad(
                    field,
                    format!("range {}..{} is not a range of seconds in 0..={MAX_SECONDS} (ten years)", r.min, r.max),
                    "{min: 60, max: 120} with 0 ≤ min ≤ max",
                );
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
            } else if v > MAX_SECONDS {
                bad(field, format!("{v} is more than {MAX_SECONDS} seconds (ten years)"), "a whole number of seconds");
            }
        }
        let rate = self.spot_interruption_rate_per_hour;
        if !(rate.is_finite() && (0.0..=MAX_INTERRUPTION_RATE_PER_HOUR).contains(&rate)) {
            bad(
                "spotInterruptionRatePerHour",
                format!("{rate} is not a rate in 0..={MAX_INTERRUPTION_RATE_PER_HOUR} per instance-hour"),
                "e.g. 0.0001",
            );
        }
        if self.termination_grace_period_seconds.is_some_and(|v| !(0..=MAX_SECONDS).contains(&v)) {
            bad("terminationGracePeriodSeconds", format!("must be in 0..={MAX_SECONDS} (ten years)"), "seconds");
        }
        if self.end_seconds.is_some_and(|v| !(1..=MAX_SECONDS).contains(&v)) {
            bad("endSeconds", format!("must be in 1..={MAX_SECONDS} (ten years)"), "seconds from the trace start");
        }
        for (id, price) in &self.capacity_block_prices {
            if !(price.is_finite() && (0.0..=MAX_CAPACITY_BLOCK_PRICE).contains(price)) {
                errors.push(
                    InputError::new(
                        "invalid-setting",
                        format!("{price} is not a price in 0..={MAX_CAPACITY_BLOCK_PRICE} USD per instance-hour"),
                    )
                    .path(format!("simulation.capacityBlockPrices[{id:?}]"))
                    .help("e.g. 31.464 for a p5.48xlarge block"),
                );
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(s: SimSettings) -> Vec<String> {
        s.check().err().unwrap_or_default().iter().map(|e| e.path.clone().unwrap_or_default()).collect()
    }

    #[test]
    fn defaults_pass() {
        assert!(SimSettings::default().check().is_ok());
    }

    #[test]
    fn values_near_i64_max_are_refused_before_any_work() {
        let mut s = SimSettings { metrics_interval_seconds: i64::MAX - 1, ..SimSettings::default() };
        s.device_plugin_seconds = SecondsRange { min: i64::MAX - 10, max: i64::MAX };
        s.batch_max_seconds = i64::MAX;
        s.end_seconds = Some(i64::MAX);
        s.termination_grace_period_seconds = Some(i64::MAX);
        let paths = errors(s);
        for want in [
            "simulation.metricsIntervalSeconds",
            "simulation.devicePluginSeconds",
            "simulation.batchMaxSeconds",
            "simulation.endSeconds",
            "simulation.terminationGracePeriodSeconds",
        ] {
            assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
        }
    }

    #[test]
    fn interruption_rate_is_bounded() {
        let s = SimSettings { spot_interruption_rate_per_hour: 1e6, ..SimSettings::default() };
        assert_eq!(errors(s), ["simulation.spotInterruptionRatePerHour"]);
        let s = SimSettings { spot_interruption_rate_per_hour: MAX_INTERRUPTION_RATE_PER_HOUR, ..SimSettings::default() };
        assert!(s.check().is_ok());
    }

    #[test]
    fn the_bound_itself_is_accepted() {
        let s = SimSettings { end_seconds: Some(MAX_SECONDS), metrics_interval_seconds: MAX_SECONDS, ..SimSettings::default() };
        assert!(s.check().is_ok());
    }
}

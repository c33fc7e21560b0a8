//! What the simulator's integration tests share: start-up latencies fixed (min == max) and no
//! spot interruptions, so every expected time and cost is computable by hand.
#![allow(dead_code)] // each test binary uses its own part

use nodecast::simulate::{SecondsRange, SimSettings};

/// GPU node start-up, seconds.
pub const STARTUP: i64 = 240;
/// NVIDIA device plugin readiness after start-up, seconds.
pub const PLUGIN: i64 = 75;

/// Settings with the fixed latencies above and no spot interruptions.
pub fn fixed() -> SimSettings {
    SimSettings {
        gpu_startup_seconds: SecondsRange { min: STARTUP, max: STARTUP },
        device_plugin_seconds: SecondsRange { min: PLUGIN, max: PLUGIN },
        spot_interruption_rate_per_hour: 0.0,
        ..Default::default()
    }
}

//! What the integration tests share: the simulator's start-up latencies fixed (min == max) with
//! no spot interruptions, so every expected time and cost is computable by hand, and the
//! reservation tests' EC2NodeClass.
#![allow(dead_code)] // each test binary uses its own part

use nodecast::simulate::{SecondsRange, SimSettings, Simulation};
use nodecast::{Input, Outcome, Request};

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

/// An EC2NodeClass selecting the reservations tagged `team: ml`.
pub const NODE_CLASS: &str = r#"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: ml}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: ml}}]
  capacityReservationSelectorTerms:
  - tags: {team: ml}
"#;

/// `nodecast::simulate` of one cluster file and one trace, expected to succeed.
pub fn simulate(cluster: &str, trace: &str, settings: SimSettings) -> Simulation {
    let req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        simulation: Some(settings),
        ..Default::default()
    };
    match nodecast::simulate(&req).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

//! Karpenter's feature gates, in one place (design.md: "feature gates live in one `Settings.gates`
//! value, read where Karpenter reads them").
//!
//! The gates, their spelling and their defaults are Karpenter v1.15.0's
//! (`pkg/operator/options/options.go`, `KarpenterFeatureGates`). Every front end hands the core
//! either Karpenter's own `--feature-gates` string (`Name=true,Other=false`) or the JSON mapping
//! `{"NodeOverlay": true}`; both become one [`FeatureGates`] value here.
//!
//! A gate nodecast does not model yet may only be left at Karpenter's default: turning it the
//! other way would change Karpenter's answer in a way nodecast cannot follow, so it is refused
//! ([`FeatureGates::unmodelled`]) rather than silently ignored.

use serde::{Deserialize, Serialize};

/// One of Karpenter's feature gates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gate {
    /// Node repair: unhealthy nodes replaced per the cloud provider's policies (alpha, off).
    NodeRepair,
    /// Launches into capacity reservations, preferred over on-demand and spot (beta, on).
    ReservedCapacity,
    /// Spot nodes replaced with cheaper spot nodes (alpha, off).
    SpotToSpotConsolidation,
    /// The NodeOverlay API adjusts instance types' capacity and prices (alpha, off).
    NodeOverlay,
    /// Static NodePools kept at `spec.replicas` nodes (alpha, off).
    StaticCapacity,
    /// CapacityBuffers' virtual pods provisioned for (alpha, off).
    CapacityBuffer,
    /// A drifted node terminated before its replacement is ready when it must be (alpha, off).
    TerminateFirstDrift,
    /// An unhealthy node terminated before its replacement is ready (alpha, off).
    TerminateFirstRepair,
    /// Karpenter sets pod-deletion-cost and stops reading it as a disruption cost (alpha, off).
    PodDeletionCostManagement,
}

impl Gate {
    /// Every gate, in the order Karpenter's `--feature-gates` help lists them.
    pub const ALL: [Gate; 9] = [
        Gate::NodeRepair,
        Gate::ReservedCapacity,
        Gate::SpotToSpotConsolidation,
        Gate::NodeOverlay,
        Gate::StaticCapacity,
        Gate::CapacityBuffer,
        Gate::TerminateFirstDrift,
        Gate::TerminateFirstRepair,
        Gate::PodDeletionCostManagement,
    ];

    /// The gate's name as `--feature-gates` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Gate::NodeRepair => "NodeRepair",
            Gate::ReservedCapacity => "ReservedCapacity",
            Gate::SpotToSpotConsolidation => "SpotToSpotConsolidation",
            Gate::NodeOverlay => "NodeOverlay",
            Gate::StaticCapacity => "StaticCapacity",
            Gate::CapacityBuffer => "CapacityBuffer",
            Gate::TerminateFirstDrift => "TerminateFirstDrift",
            Gate::TerminateFirstRepair => "TerminateFirstRepair",
            Gate::PodDeletionCostManagement => "PodDeletionCostManagement",
        }
    }

    /// Karpenter v1.15.0's default (ReservedCapacity is beta and on; the others alpha and off).
    pub const fn default_value(self) -> bool {
        matches!(self, Gate::ReservedCapacity)
    }

    /// Whether nodecast follows what this gate changes, in both positions. A gate that is not
    /// modelled may only keep its default. Extend this as each gate's behaviour lands.
    pub const fn modelled(self) -> bool {
        // NodeOverlay: catalog/overlay.rs; ReservedCapacity: catalog/resolve.rs; StaticCapacity,
        // CapacityBuffer: core/src/static_pools/, core/src/lower/buffers.rs and
        // simulate/buffers.rs; PodDeletionCostManagement: the eviction cost lowering reads
        // (model/pod.rs), refused by `simulate`, whose ReplicaSet scale-down order it changes;
        // NodeRepair, TerminateFirstRepair, TerminateFirstDrift: disruption/repair.rs, drift.rs.
        matches!(
            self,
            Gate::NodeRepair
                | Gate::TerminateFirstRepair
                | Gate::TerminateFirstDrift
                | Gate::SpotToSpotConsolidation
                | Gate::NodeOverlay
                | Gate::ReservedCapacity
                | Gate::StaticCapacity
                | Gate::CapacityBuffer
                | Gate::PodDeletionCostManagement
        )
    }

    /// The gate named `name` (exact spelling, as Karpenter matches it).
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// The value of every gate. `Default` is Karpenter v1.15.0's default. On the wire a mapping
/// (`{"NodeOverlay": true}`, gates left out keep their default) or Karpenter's flag string
/// (`"NodeOverlay=true,SpotToSpotConsolidation=true"`), so a front end passes what its user
/// wrote and the core alone parses it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "PascalCase", default, deny_unknown_fields)]
pub struct FeatureGates {
    /// [`Gate::NodeRepair`].
    pub node_repair: bool,
    /// [`Gate::ReservedCapacity`].
    pub reserved_capacity: bool,
    /// [`Gate::SpotToSpotConsolidation`].
    pub spot_to_spot_consolidation: bool,
    /// [`Gate::NodeOverlay`].
    pub node_overlay: bool,
    /// [`Gate::StaticCapacity`].
    pub static_capacity: bool,
    /// [`Gate::CapacityBuffer`].
    pub capacity_buffer: bool,
    /// [`Gate::TerminateFirstDrift`].
    pub terminate_first_drift: bool,
    /// [`Gate::TerminateFirstRepair`].
    pub terminate_first_repair: bool,
    /// [`Gate::PodDeletionCostManagement`].
    pub pod_deletion_cost_management: bool,
}

impl Default for FeatureGates {
    fn default() -> Self {
        let mut gates = FeatureGates {
            node_repair: false,
            reserved_capacity: false,
            spot_to_spot_consolidation: false,
            node_overlay: false,
            static_capacity: false,
            capacity_buffer: false,
            terminate_first_drift: false,
            terminate_first_repair: false,
            pod_deletion_cost_management: false,
        };
        for g in Gate::ALL {
            *gates.slot(g) = g.default_value();
        }
        gates
    }
}

impl FeatureGates {
    fn slot(&mut self, gate: Gate) -> &mut bool {
        match gate {
            Gate::NodeRepair => &mut self.node_repair,
            Gate::ReservedCapacity => &mut self.reserved_capacity,
            Gate::SpotToSpotConsolidation => &mut self.spot_to_spot_consolidation,
            Gate::NodeOverlay => &mut self.node_overlay,
            Gate::StaticCapacity => &mut self.static_capacity,
            Gate::CapacityBuffer => &mut self.capacity_buffer,
            Gate::TerminateFirstDrift => &mut self.terminate_first_drift,
            Gate::TerminateFirstRepair => &mut self.terminate_first_repair,
            Gate::PodDeletionCostManagement => &mut self.pod_deletion_cost_management,
        }
    }

    /// Whether `gate` is on.
    pub fn get(&self, gate: Gate) -> bool {
        let mut copy = *self;
        *copy.slot(gate)
    }

    /// Turns `gate` on or off.
    pub fn set(&mut self, gate: Gate, on: bool) {
        *self.slot(gate) = on;
    }

    /// Applies Karpenter's `--feature-gates` string (`Name=bool,Name=bool`) on top of `self`.
    /// Values are read as Go's `strconv.ParseBool` reads them (Karpenter parses the flag with
    /// Kubernetes' `MapStringBool`); an unknown gate name is an error here, where Karpenter would
    /// ignore it, because a misspelt gate silently left at its default is a wrong answer.
    pub fn apply(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|g| !g.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| format!("{item:?} is not Name=true|false"))?;
            let (name, value) = (name.trim(), value.trim());
            let gate = Gate::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Gate::ALL.iter().map(|g| g.name()).collect();
                format!("{name:?} is not a Karpenter v1.15 feature gate (one of {})", names.join(", "))
            })?;
            let on = parse_go_bool(value).ok_or_else(|| format!("{name}={value}: the value must be true or false"))?;
            self.set(gate, on);
        }
        Ok(())
    }

    /// Karpenter's `--feature-gates` string of these values, every gate listed.
    pub fn to_flag(&self) -> String {
        Gate::ALL.iter().map(|g| format!("{}={}", g.name(), self.get(*g))).collect::<Vec<_>>().join(",")
    }

    /// The gates set away from Karpenter's default that nodecast does not model yet.
    pub fn unmodelled(&self) -> Vec<Gate> {
        Gate::ALL.into_iter().filter(|g| !g.modelled() && self.get(*g) != g.default_value()).collect()
    }
}

/// The mapping form of [`FeatureGates`] on the wire.
#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default, deny_unknown_fields)]
struct GatesMap {
    node_repair: Option<bool>,
    reserved_capacity: Option<bool>,
    spot_to_spot_consolidation: Option<bool>,
    node_overlay: Option<bool>,
    static_capacity: Option<bool>,
    capacity_buffer: Option<bool>,
    terminate_first_drift: Option<bool>,
    terminate_first_repair: Option<bool>,
    pod_deletion_cost_management: Option<bool>,
}

impl<'de> Deserialize<'de> for FeatureGates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut gates = FeatureGates::default();
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(flag) => gates.apply(&flag).map_err(D::Error::custom)?,
            v @ serde_json::Value::Object(_) => {
                let m: GatesMap = serde_json::from_value(v).map_err(D::Error::custom)?;
                let pairs = [
                    (Gate::NodeRepair, m.node_repair),
                    (Gate::ReservedCapacity, m.reserved_capacity),
                    (Gate::SpotToSpotConsolidation, m.spot_to_spot_consolidation),
                    (Gate::NodeOverlay, m.node_overlay),
                    (Gate::StaticCapacity, m.static_capacity),
                    (Gate::CapacityBuffer, m.capacity_buffer),
                    (Gate::TerminateFirstDrift, m.terminate_first_drift),
                    (Gate::TerminateFirstRepair, m.terminate_first_repair),
                    (Gate::PodDeletionCostManagement, m.pod_deletion_cost_management),
                ];
                for (g, v) in pairs {
                    if let Some(on) = v {
                        gates.set(g, on);
                    }
                }
            }
            serde_json::Value::Null => {}
            other => {
                return Err(D::Error::custom(format!(
                    "featureGates must be a mapping of gate names to booleans or Karpenter's flag string, not {other}"
                )))
            }
        }
        Ok(gates)
    }
}

/// Go's `strconv.ParseBool`.
pub(crate) fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_karpenters() {
        let g = FeatureGates::default();
        assert!(g.reserved_capacity);
        assert!(!g.spot_to_spot_consolidation && !g.node_overlay && !g.node_repair && !g.static_capacity);
        assert_eq!(
            g.to_flag(),
            "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,\
             StaticCapacity=false,CapacityBuffer=false,TerminateFirstDrift=false,TerminateFirstRepair=false,\
             PodDeletionCostManagement=false"
        );
    }

    #[test]
    fn parses_karpenters_flag() {
        let mut g = FeatureGates::default();
        g.apply(" SpotToSpotConsolidation=true , ReservedCapacity=F,").unwrap();
        assert!(g.spot_to_spot_consolidation);
        assert!(!g.reserved_capacity);
        assert!(g.apply("Spot=true").unwrap_err().contains("not a Karpenter v1.15 feature gate"));
        assert!(g.apply("NodeRepair=yes").unwrap_err().contains("true or false"));
        assert!(g.apply("NodeRepair").unwrap_err().contains("Name=true|false"));
    }

    #[test]
    fn json_spelling_is_the_flags() {
        let g: FeatureGates = serde_json::from_str(r#"{"NodeOverlay": true}"#).unwrap();
        assert!(g.node_overlay && g.reserved_capacity);
        assert!(serde_json::from_str::<FeatureGates>(r#"{"nodeOverlay": true}"#).is_err());
        assert_eq!(serde_json::to_value(g).unwrap()["NodeOverlay"], true);
        let g: FeatureGates = serde_json::from_str(r#""NodeOverlay=true,ReservedCapacity=false""#).unwrap();
        assert!(g.node_overlay && !g.reserved_capacity);
        assert!(serde_json::from_str::<FeatureGates>(r#""Nope=true""#).unwrap_err().to_string().contains("Nope"));
        assert!(serde_json::from_str::<FeatureGates>("3").is_err());
    }

    #[test]
    fn unmodelled_only_when_moved_from_default() {
        let mut g = FeatureGates::default();
        assert!(g.unmodelled().is_empty());
        g.spot_to_spot_consolidation = true;
        assert!(g.unmodelled().is_empty(), "SpotToSpotConsolidation is modelled");
        g.node_overlay = true;
        assert!(g.unmodelled().is_empty(), "NodeOverlay is modelled (catalog/overlay.rs)");
        g.reserved_capacity = false;
        assert!(g.unmodelled().is_empty(), "ReservedCapacity is modelled (catalog::resolve)");
        g.pod_deletion_cost_management = true;
        assert!(g.unmodelled().is_empty(), "PodDeletionCostManagement is modelled (model/pod.rs)");
        g.terminate_first_repair = true;
        g.terminate_first_drift = true;
        g.node_repair = true;
        assert!(g.unmodelled().is_empty(), "NodeRepair and terminate-first are modelled (disruption/repair.rs)");
    }
}

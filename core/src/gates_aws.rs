//! The AWS provider's own feature gates (karpenter-provider-aws v1.15.0,
//! pkg/operator/options/options.go: `--aws-feature-gates`, default
//! `NodeClassCEL=false,DRANVIDIAGPU=false,DRAEFA=false,RebootForRepair=false`). Same two
//! spellings as Karpenter's gates (crate::gates): the flag string or a mapping
//! `{"DRANVIDIAGPU": true}`, in `Settings.awsFeatureGates`. Kept apart from `FeatureGates`
//! because Karpenter keeps them apart: a different flag, read by the provider only.
//!
//! DRANVIDIAGPU and DRAEFA are modelled (crate::dra::aws: the ResourceSlice templates a new
//! node of a GPU / EFA instance type gets); NodeClassCEL and RebootForRepair may only keep their
//! default, anything else is refused with a located error.

use serde::{Deserialize, Serialize};

/// The AWS provider's gates; `Default` is v1.15.0's (all off).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub struct AwsFeatureGates {
    /// `NodeClassCEL` (not modelled: only its default, false).
    #[serde(rename = "NodeClassCEL")]
    pub node_class_cel: bool,
    /// `DRANVIDIAGPU`: new GPU nodes offer their NVIDIA GPUs as `gpu.nvidia.com` devices.
    #[serde(rename = "DRANVIDIAGPU")]
    pub dranvidiagpu: bool,
    /// `DRAEFA`: new nodes offer their EFA interfaces as `dra.net` devices.
    #[serde(rename = "DRAEFA")]
    pub draefa: bool,
    /// `RebootForRepair` (not modelled: only its default, false).
    #[serde(rename = "RebootForRepair")]
    pub reboot_for_repair: bool,
}

const NAMES: [&str; 4] = ["NodeClassCEL", "DRANVIDIAGPU", "DRAEFA", "RebootForRepair"];

impl AwsFeatureGates {
    fn slot(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "NodeClassCEL" => &mut self.node_class_cel,
            "DRANVIDIAGPU" => &mut self.dranvidiagpu,
            "DRAEFA" => &mut self.draefa,
            "RebootForRepair" => &mut self.reboot_for_repair,
            _ => return None,
        })
    }

    /// Applies the provider's `--aws-feature-gates` string (`Name=bool,...`) on top of `self`;
    /// an unknown name is an error (the provider would ignore it: a misspelt gate would be a
    /// silently wrong answer).
    pub fn apply(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|g| !g.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| format!("{item:?} is not Name=true|false"))?;
            let (name, value) = (name.trim(), value.trim());
            let on = crate::gates::parse_go_bool(value).ok_or_else(|| format!("{name}={value}: the value must be true or false"))?;
            *self
                .slot(name)
                .ok_or_else(|| format!("{name:?} is not an AWS provider v1.15 feature gate (one of {})", NAMES.join(", ")))? = on;
        }
        Ok(())
    }

    /// The gates set away from their default that nodecast does not model.
    pub fn unmodelled(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.node_class_cel {
            out.push("NodeClassCEL");
        }
        if self.reboot_for_repair {
            out.push("RebootForRepair");
        }
        out
    }

    /// Whether any DRA driver gate is on.
    pub fn any_dra(&self) -> bool {
        self.dranvidiagpu || self.draefa
    }
}

impl<'de> Deserialize<'de> for AwsFeatureGates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut gates = AwsFeatureGates::default();
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(flag) => gates.apply(&flag).map_err(D::Error::custom)?,
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let on = v.as_bool().ok_or_else(|| D::Error::custom(format!("awsFeatureGates.{k} must be true or false")))?;
                    *gates.slot(&k).ok_or_else(|| {
                        D::Error::custom(format!("{k:?} is not an AWS provider v1.15 feature gate (one of {})", NAMES.join(", ")))
                    })? = on;
                }
            }
            serde_json::Value::Null => {}
            other => {
                return Err(D::Error::custom(format!(
                    "awsFeatureGates must be a mapping of gate names to booleans or the provider's flag string, not {other}"
                )))
            }
        }
        Ok(gates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_and_refusals() {
        let g: AwsFeatureGates = serde_json::from_str(r#""DRANVIDIAGPU=true,DRAEFA=f""#).unwrap();
        assert!(g.dranvidiagpu && !g.draefa && g.any_dra());
        let g: AwsFeatureGates = serde_json::from_str(r#"{"DRAEFA": true}"#).unwrap();
        assert!(g.draefa && !g.dranvidiagpu);
        assert!(serde_json::from_str::<AwsFeatureGates>(r#"{"DraEfa": true}"#).unwrap_err().to_string().contains("DraEfa"));
        assert!(serde_json::from_str::<AwsFeatureGates>(r#""DRAEFA=yes""#).unwrap_err().to_string().contains("true or false"));
        assert_eq!(serde_json::to_value(g).unwrap()["DRAEFA"], true);
        let mut g = AwsFeatureGates::default();
        assert!(g.unmodelled().is_empty() && !g.any_dra());
        g.apply("RebootForRepair=true").unwrap();
        assert_eq!(g.unmodelled(), vec!["RebootForRepair"]);
    }
}

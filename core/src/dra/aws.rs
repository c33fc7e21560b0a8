//! The DRA devices the AWS provider v1.15.0 templates for a new node of an instance type
//! (pkg/cloudprovider/dynamicresources.go `populateDynamicResources`): nothing unless
//! `--ignore-dra-requests=false` and one of its gates is on; then one ResourceSlice template per
//! gated driver, with one device per physical device of the type
//! (pkg/providers/nvidiadra/nvidiadra.go: driver `gpu.nvidia.com`, pool `gpus-<type>`, devices
//! `gpu-<i>`; pkg/providers/efadra/efadra.go: driver `dra.net`, pool `network-<type>`, devices
//! `efa-<i>`). The device facts are the provider's scraped metadata (aws_devices.rs).

use super::{AttrValue, Device};
use crate::gates_aws::AwsFeatureGates;

pub use super::profile::{Profile, A};

pub const NVIDIA_DRIVER: &str = "gpu.nvidia.com";
pub const EFA_DRIVER: &str = "dra.net";

/// A ResourceSlice template: driver, pool and devices.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub driver: &'static str,
    pub pool: String,
    pub devices: Vec<Device>,
}

fn device(name: String, p: &Profile) -> Device {
    Device {
        name,
        attributes: p
            .attributes
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    A::S(s) => AttrValue::Str(s.to_string()),
                    A::V(s) => AttrValue::Version(s.to_string()),
                    A::I(n) => AttrValue::Int(*n),
                    A::B(b) => AttrValue::Bool(*b),
                };
                (k.to_string(), v)
            })
            .collect(),
        // The table's quantities are the provider's literals ("15Gi", "23028Mi"): always valid.
        capacity: p.capacity.iter().filter_map(|(k, q)| Some((k.to_string(), crate::quantity::parse_milli(q).ok()?))).collect(),
    }
}

fn lookup(table: &'static [(&'static str, &'static [u16])], instance_type: &str) -> Option<&'static [u16]> {
    table.binary_search_by(|(n, _)| (*n).cmp(instance_type)).ok().map(|i| table[i].1)
}

/// The templates of a new node of `instance_type` under `gates` (NVIDIA first, then EFA, as the
/// provider appends them). The caller checks `--ignore-dra-requests`.
pub fn templates(instance_type: &str, gates: &AwsFeatureGates) -> Vec<Template> {
    let mut out = Vec::new();
    use super::aws_devices::{EFA, GPU, PROFILES};
    if gates.dranvidiagpu {
        if let Some(ids) = lookup(GPU, instance_type) {
            let devices = ids.iter().enumerate().map(|(i, &p)| device(format!("gpu-{i}"), &PROFILES[p as usize])).collect();
            out.push(Template { driver: NVIDIA_DRIVER, pool: format!("gpus-{instance_type}"), devices });
        }
    }
    if gates.draefa {
        if let Some(ids) = lookup(EFA, instance_type) {
            let devices = ids.iter().enumerate().map(|(i, &p)| device(format!("efa-{i}"), &PROFILES[p as usize])).collect();
            out.push(Template { driver: EFA_DRIVER, pool: format!("network-{instance_type}"), devices });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_holds_the_provider_counts() {
        use super::super::aws_devices::{EFA, GPU};
        assert!(GPU.windows(2).all(|w| w[0].0 < w[1].0) && EFA.windows(2).all(|w| w[0].0 < w[1].0));
        // 53 GPU types with 160 GPUs and 29 EFA types with 138 devices in drametadata.
        assert_eq!((GPU.len(), GPU.iter().map(|(_, d)| d.len()).sum::<usize>()), (53, 160));
        assert_eq!((EFA.len(), EFA.iter().map(|(_, d)| d.len()).sum::<usize>()), (29, 138));
    }

    #[test]
    fn templates_follow_the_gates() {
        let off = AwsFeatureGates::default();
        assert!(templates("g5.12xlarge", &off).is_empty());
        let gpu = AwsFeatureGates { dranvidiagpu: true, ..off };
        let t = templates("g5.12xlarge", &gpu);
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].driver, t[0].pool.as_str(), t[0].devices.len()), ("gpu.nvidia.com", "gpus-g5.12xlarge", 4));
        assert_eq!(t[0].devices[3].name, "gpu-3");
        assert!(t[0].devices[0].attributes.contains(&("productName".into(), AttrValue::Str("NVIDIA A10G".into()))));
        assert_eq!(t[0].devices[0].capacity, vec![("memory".to_string(), 23028 * 1024 * 1024 * 1000)]);
        assert!(templates("m5.large", &gpu).is_empty());
        let both = AwsFeatureGates { draefa: true, ..gpu };
        let t = templates("g5.12xlarge", &both);
        assert_eq!(t.iter().map(|t| t.driver).collect::<Vec<_>>(), vec!["gpu.nvidia.com", "dra.net"]);
    }
}

//! Instance types and their offerings as the solver sees them. Where they come from (the
//! embedded AWS data or a user's catalog) is `catalog`'s business.

use super::LabelSet;
use crate::labels::{KeyId, ValueId};
use crate::resources::Resources;
use smallvec::SmallVec;

/// The `source` of the embedded AWS catalog.
pub const AWS_SOURCE: &str = "aws-us-east-1";

/// One way to buy an instance type: zone × capacity type, with a price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offering {
    pub zone: ValueId,
    pub capacity_type: ValueId,
    pub price: f64,
    pub available: bool,
    /// For a `reserved` offering: its reservation, an index into `Model::reservations`
    /// (`catalog::resolve`).
    pub reservation: Option<u32>,
}

/// An instance type of the catalog, with its offerings.
#[derive(Debug, Clone)]
pub struct InstanceType {
    pub name: String,
    pub name_id: ValueId,
    /// Single-valued labels (without zone and capacity type, which come from offerings).
    pub labels: LabelSet,
    pub allocatable: Resources,
    /// Used only for NodePool limits.
    pub capacity: Resources,
    pub on_demand_price: f64,
    pub spot_price: Option<f64>,
    pub offerings: SmallVec<[Offering; 6]>,
    /// Metal or accelerator type, dropped at launch when ordinary options exist (FORMAT §2.1).
    pub exotic: bool,
}

/// The instance types a cluster can launch (built by `catalog::build`).
#[derive(Debug, Clone)]
pub struct Catalog {
    /// `aws-us-east-1` or `inline`.
    pub source: String,
    pub types: Vec<InstanceType>,
    /// Instance-type label keys (FORMAT §2.3), sorted.
    pub(crate) label_keys: Vec<KeyId>,
    pub zones: Vec<ValueId>,
    pub spot_price_factor: f64,
}

impl Catalog {
    pub fn is_label_key(&self, key: KeyId) -> bool {
        self.label_keys.binary_search(&key).is_ok()
    }

    pub fn label_keys(&self) -> &[KeyId] {
        &self.label_keys
    }

    pub fn is_aws(&self) -> bool {
        self.source == AWS_SOURCE
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.name == name)
    }
}

//! Instance types and their offerings as the solver sees them. Where they come from (the
//! embedded AWS data or a user's catalog) is `catalog`'s business.

use super::LabelSet;
use crate::labels::{KeyId, ValueId};
use crate::resources::Resources;
use smallvec::SmallVec;

/// The `source` of the embedded AWS catalog.
pub const AWS_SOURCE: &str = "aws-us-east-1";

/// Where an offering's price comes from (the plan's `priceSource`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PriceSource {
    /// The catalog's list price: the region's embedded on-demand table, an inline catalog's
    /// price.
    List,
    /// us-east-1's list price standing in for a region without an embedded table, as Karpenter
    /// does until the Pricing API answers.
    #[serde(rename = "us-east-1-list")]
    UsEast1List,
    /// The user's: a price document of the inputs or the catalog's `prices`.
    User,
    /// On-demand price × `spotPriceFactor`: no spot price was given.
    Factor,
    /// A capacity reservation's (on-demand price / 10,000,000, as the AWS provider prices it).
    Reservation,
    /// A NodeOverlay's `price` or `priceAdjustment`.
    Overlay,
}

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
    /// Where `price` comes from.
    pub source: PriceSource,
}

/// An instance type of the catalog, with its offerings.
#[allow(missing_docs)] // crate-private: outside the crate only through `internal`
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
    /// Where `on_demand_price` comes from.
    pub on_demand_source: PriceSource,
    pub offerings: SmallVec<[Offering; 6]>,
    /// Metal or accelerator type, dropped at launch when ordinary options exist (FORMAT §2.1).
    pub exotic: bool,
    /// EKS Auto Mode's management fee ($/h) from the inputs' fee table, when it has one for
    /// this type (`catalog::auto_mode_fee`). Kept on the type so pruned catalogs keep it.
    pub auto_mode_fee: Option<f64>,
}

/// The instance types a cluster can launch (built by `catalog::build`).
#[derive(Debug, Clone)]
pub struct Catalog {
    /// `aws-<region>` or `inline`.
    pub source: String,
    pub types: Vec<InstanceType>,
    /// Instance-type label keys (FORMAT §2.3), sorted.
    pub(crate) label_keys: Vec<KeyId>,
    pub zones: Vec<ValueId>,
    pub spot_price_factor: f64,
    /// The AWS region of an `aws-<region>` catalog.
    pub region: Option<String>,
    /// The prices' currency: `USD`, or `CNY` for cn-north-1 (the provider's table for it).
    pub currency: &'static str,
    /// Some price came from the user (catalog `prices` or a price document of the inputs):
    /// the plan then says per NodeClaim where its price comes from.
    pub user_prices: bool,
    /// A region without an embedded table: the inputs must carry its on-demand prices.
    pub needs_region_prices: bool,
    /// What the price and offering documents replaced and what fell back: (code, message),
    /// given as warnings.
    pub notes: Vec<(String, String)>,
    /// A fee table of EKS Auto Mode is among the inputs (`catalog::auto_mode_fee`).
    pub auto_mode_fee_table: bool,
}

impl Catalog {
    pub fn is_label_key(&self, key: KeyId) -> bool {
        self.label_keys.binary_search(&key).is_ok()
    }

    pub fn label_keys(&self) -> &[KeyId] {
        &self.label_keys
    }

    pub fn is_aws(&self) -> bool {
        self.region.is_some()
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.name == name)
    }
}

//! What a KEDA trigger asks (`Kind`) and the shape of one validation problem, shared by the
//! trigger reader (`triggers`) and the scalers with rules of their own (`rabbitmq`), which the
//! reader calls: their own file, so the two point one way.

/// (path, code, message, help) of one error; the caller locates it in its document.
pub type Problem = (String, &'static str, String, String);

/// What one trigger asks of the HPA KEDA generates (or of the ScaledJob's job count).
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An external scaler: an External metric with this target, active above `activation`.
    External {
        /// The target (`threshold`, `queueLength`, ...).
        target: f64,
        /// The activation threshold (active when the value is above it).
        activation: f64,
        /// `metricType: Value` (else AverageValue, KEDA's default).
        value: bool,
    },
    /// The cpu or memory scaler: a Resource metric of the target's pods; always active.
    Resource {
        resource: String,
        /// `metricType: Utilization` with this percent, else AverageValue with this quantity text.
        utilization: Option<i32>,
        average: Option<String>,
    },
}

//! The HPA controller's replica calculation, one metric at a time, in Kubernetes' integer
//! milli-units (pkg/controller/podautoscaler/replica_calculator.go and metrics/utilization.go,
//! v1.36): the tolerance band, pending pods (unready) counted at 0 on a scale-up, pods without a
//! metric (missing) counted at the target on a scale-down and at 0 on a scale-up, the re-check
//! that the recount does not turn the direction, and ceil of ratio × pods.

/// The usage-ratio band inside which the controller keeps the current count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    pub down: f64,
    pub up: f64,
}

impl Tolerances {
    pub fn within(&self, ratio: f64) -> bool {
        (1.0 - self.down) <= ratio && ratio <= (1.0 + self.up)
    }
}

/// One pod of the scale target as the calculation sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PodSample {
    /// Phase Pending (not started): "unready".
    Pending,
    /// Running but reporting no metric yet: "missing".
    Missing,
    /// Running with this metric value (milli-units).
    Value(i64),
}

/// Why a metric gave no proposal (the controller's FailedGet… conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalcError {
    /// The selector matches no pods.
    NoPods,
    /// No pod reported the metric (all pending or missing).
    NoMetrics,
    /// A pod has no request for the resource of a Utilization target.
    MissingRequest,
}

/// Go's `int32(math.Ceil(x))` for the values a simulation reaches, saturated instead of wrapped.
fn ceil_i32(x: f64) -> i32 {
    let c = x.ceil();
    if c >= i32::MAX as f64 {
        i32::MAX
    } else if c.is_nan() {
        0
    } else {
        c as i32
    }
}

/// `Pods` metrics and Resource `AverageValue` targets (calcPlainMetricReplicas).
pub fn plain(pods: &[PodSample], current: i32, target: i64, tol: Tolerances) -> Result<i32, CalcError> {
    if pods.is_empty() {
        return Err(CalcError::NoPods);
    }
    let ready: Vec<i64> = pods.iter().filter_map(|p| if let PodSample::Value(v) = p { Some(*v) } else { None }).collect();
    let unready = pods.iter().filter(|p| **p == PodSample::Pending).count();
    let missing = pods.iter().filter(|p| **p == PodSample::Missing).count();
    if ready.is_empty() {
        return Err(CalcError::NoMetrics);
    }
    let avg = |vals: &[i64]| vals.iter().sum::<i64>() / vals.len() as i64;
    let ratio = avg(&ready) as f64 / target as f64;
    let up_with_unready = unready > 0 && ratio > 1.0;
    if !up_with_unready && missing == 0 {
        if tol.within(ratio) {
            return Ok(current);
        }
        return Ok(ceil_i32(ratio * ready.len() as f64));
    }
    let mut vals = ready;
    if missing > 0 {
        if ratio < 1.0 {
            vals.extend(std::iter::repeat_n(target, missing));
        } else if ratio > 1.0 {
            vals.extend(std::iter::repeat_n(0, missing));
        }
    }
    if up_with_unready {
        vals.extend(std::iter::repeat_n(0, unready));
    }
    let new_ratio = avg(&vals) as f64 / target as f64;
    if tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        return Ok(current);
    }
    let n = ceil_i32(new_ratio * vals.len() as f64);
    if (new_ratio < 1.0 && n > current) || (new_ratio > 1.0 && n < current) {
        return Ok(current);
    }
    Ok(n)
}

/// Resource `Utilization` targets (GetResourceReplicas): `pods` with each pod's request of the
/// resource (milli-units; 0 = no request, which the controller refuses).
pub fn utilization(pods: &[(PodSample, i64)], current: i32, target: i32, tol: Tolerances) -> Result<i32, CalcError> {
    if pods.is_empty() {
        return Err(CalcError::NoPods);
    }
    let ready: Vec<(i64, i64)> = pods.iter().filter_map(|(p, r)| if let PodSample::Value(v) = p { Some((*v, *r)) } else { None }).collect();
    let unready: Vec<i64> = pods.iter().filter(|(p, _)| *p == PodSample::Pending).map(|(_, r)| *r).collect();
    let missing: Vec<i64> = pods.iter().filter(|(p, _)| *p == PodSample::Missing).map(|(_, r)| *r).collect();
    if ready.is_empty() {
        return Err(CalcError::NoMetrics);
    }
    if pods.iter().any(|(_, r)| *r <= 0) {
        return Err(CalcError::MissingRequest);
    }
    // utilization.go: integer percent of the summed requests, then its ratio to the target.
    let ratio_of = |vals: &[(i64, i64)]| -> f64 {
        let used: i64 = vals.iter().map(|v| v.0).sum();
        let req: i64 = vals.iter().map(|v| v.1).sum();
        ((used * 100) / req) as i32 as f64 / target as f64
    };
    let ratio = ratio_of(&ready);
    let up_with_unready = !unready.is_empty() && ratio > 1.0;
    if !up_with_unready && missing.is_empty() {
        if tol.within(ratio) {
            return Ok(current);
        }
        return Ok(ceil_i32(ratio * ready.len() as f64));
    }
    let mut vals = ready;
    if !missing.is_empty() {
        if ratio < 1.0 {
            // A missing pod counts as using its whole request (or the target, above 100 %).
            let fallback = i64::from(target.max(100));
            vals.extend(missing.iter().map(|r| (r * fallback / 100, *r)));
        } else if ratio > 1.0 {
            vals.extend(missing.iter().map(|r| (0, *r)));
        }
    }
    if up_with_unready {
        vals.extend(unready.iter().map(|r| (0, *r)));
    }
    let new_ratio = ratio_of(&vals);
    if tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        return Ok(current);
    }
    let n = ceil_i32(new_ratio * vals.len() as f64);
    if (new_ratio < 1.0 && n > current) || (new_ratio > 1.0 && n < current) {
        return Ok(current);
    }
    Ok(n)
}

/// Object and External `Value` targets (getUsageRatioReplicaCount): the ratio scales the
/// ready pods (Running and Ready); `pods` is how many pods the selector matches.
pub fn value(usage: i64, target: i64, current: i32, ready: i64, pods: usize, tol: Tolerances) -> Result<i32, CalcError> {
    let ratio = usage as f64 / target as f64;
    if current == 0 {
        return Ok(ceil_i32(ratio));
    }
    if tol.within(ratio) {
        return Ok(current);
    }
    if pods == 0 {
        return Err(CalcError::NoPods);
    }
    Ok(ceil_i32(ratio * ready as f64))
}

/// Object and External `AverageValue` targets (Get…PerPodMetricReplicas): the total divided
/// by the target, against the Scale's status replicas.
pub fn average_value(usage: i64, target: i64, status_replicas: i32, tol: Tolerances) -> i32 {
    let ratio = usage as f64 / (target as f64 * status_replicas as f64);
    if tol.within(ratio) {
        status_replicas
    } else {
        ceil_i32(usage as f64 / target as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const T: Tolerances = Tolerances { down: 0.1, up: 0.1 };
    use PodSample::*;

    #[test]
    fn plain_metric_scales_by_ratio_outside_the_tolerance() {
        // 3 pods at 100 against 70: ratio 1.428 → ceil(4.28) = 5.
        assert_eq!(plain(&[Value(100_000); 3], 3, 70_000, T), Ok(5));
        // 75 against 70 is inside the 10 % band: no change.
        assert_eq!(plain(&[Value(75_000); 3], 3, 70_000, T), Ok(3));
        assert_eq!(plain(&[Pending, Missing], 2, 70_000, T), Err(CalcError::NoMetrics));
        assert_eq!(plain(&[], 2, 70_000, T), Err(CalcError::NoPods));
    }

    #[test]
    fn pending_pods_count_as_zero_on_a_scale_up() {
        // Two ready at 140, two pending: (140+140+0+0)/4 = 70 → ratio 1.0, inside the band.
        assert_eq!(plain(&[Value(140_000), Value(140_000), Pending, Pending], 4, 70_000, T), Ok(4));
        // Two ready at 210, one pending: avg 140 → ratio 2 → ceil(2 × 3) = 6.
        assert_eq!(plain(&[Value(210_000), Value(210_000), Pending], 3, 70_000, T), Ok(6));
    }

    #[test]
    fn missing_pods_count_as_the_target_on_a_scale_down() {
        // Ready pod at 10, one missing counted at 70: avg 40 → ratio 0.571 → ceil(1.14) = 2.
        assert_eq!(plain(&[Value(10_000), Missing], 2, 70_000, T), Ok(2));
        // Three ready at 7, one missing at 70: avg 22.75 → ratio 0.325 × 4 pods → ceil(1.3) = 2.
        assert_eq!(plain(&[Value(7_000), Value(7_000), Value(7_000), Missing], 4, 70_000, T), Ok(2));
    }

    #[test]
    fn utilization_uses_integer_percent_of_requests() {
        // 900m used of 1 CPU each, target 60 %: 90 % → 1.5 → ceil(3) = 3 from 2.
        assert_eq!(utilization(&[(Value(900), 1000), (Value(900), 1000)], 2, 60, T), Ok(3));
        assert_eq!(utilization(&[(Value(900), 0)], 1, 60, T), Err(CalcError::MissingRequest));
    }

    #[test]
    fn object_and_external_targets() {
        assert_eq!(value(300_000, 100_000, 2, 2, 2, T), Ok(6));
        assert_eq!(value(105_000, 100_000, 2, 2, 2, T), Ok(2));
        assert_eq!(average_value(300_000, 100_000, 2, T), 3);
        assert_eq!(average_value(210_000, 100_000, 2, T), 2);
    }
}

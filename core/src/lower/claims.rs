//! Dynamic Resource Allocation references of a pod spec: `spec.resourceClaims` and the
//! containers' `resources.claims`, checked as the apiserver checks them (a claim reference
//! names exactly one of a ResourceClaim or a ResourceClaimTemplate; a container consumes only
//! claims its pod declares), so nothing the apiserver would reject reaches the scheduler.
//!
//! Karpenter decides on the references alone (`HasDRARequirements`,
//! pkg/utils/pod/scheduling.go): a pod with any is refused while `--ignore-dra-requests` is true,
//! and a DaemonSet pod with any adds no overhead. The model keeps only that fact.

use crate::manifest::reader::{At, Sink};

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (DNS-1123 label, the apiserver's rule
/// for `spec.resourceClaims[].name`).
pub(super) fn dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// DNS-1123 subdomain (object names): dot-separated labels, at most 253 characters.
pub(super) fn dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(dns_label)
}

const LABEL_HELP: &str = "a DNS-1123 label: lowercase letters, digits and '-', at most 63 characters, e.g. \"gpu\"";

/// Whether the pod spec references ResourceClaims (Karpenter's `HasDRARequirements`), with the
/// references validated into `sink`.
pub fn resource_claims(spec: &At, sink: &mut Sink) -> Vec<crate::dra::PodClaim> {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    if let Some(rc) = spec.get("resourceClaims") {
        for c in sink.list(&rc) {
            let name = sink.opt_scalar(&c, "name").unwrap_or_default();
            if name.is_empty() {
                sink.error(&c, "required", "a pod resource claim needs a `name`", LABEL_HELP);
            } else if !dns_label(&name) {
                let at = c.get("name");
                sink.error(
                    at.as_ref().unwrap_or(&c),
                    "invalid-name",
                    format!("resource claim name {name:?} is not a DNS-1123 label"),
                    LABEL_HELP,
                );
            } else if names.contains(&name) {
                let at = c.get("name");
                sink.error(
                    at.as_ref().unwrap_or(&c),
                    "duplicate",
                    format!("resource claim name {name:?} is declared twice"),
                    "unique names in spec.resourceClaims",
                );
            }
            let claim = sink.opt_scalar(&c, "resourceClaimName").filter(|s| !s.is_empty());
            let template = sink.opt_scalar(&c, "resourceClaimTemplateName").filter(|s| !s.is_empty());
            match (&claim, &template) {
                (None, None) | (Some(_), Some(_)) => sink.error(
                    &c,
                    "invalid-resource-claim",
                    format!("resource claim {name:?} must name exactly one of resourceClaimName and resourceClaimTemplateName"),
                    "resourceClaimName: <a ResourceClaim> or resourceClaimTemplateName: <a ResourceClaimTemplate>",
                ),
                (Some(n), None) | (None, Some(n)) if !dns_subdomain(n) => {
                    let field = if claim.is_some() { "resourceClaimName" } else { "resourceClaimTemplateName" };
                    let at = c.get(field);
                    sink.error(
                        at.as_ref().unwrap_or(&c),
                        "invalid-name",
                        format!("{field} {n:?} is not a DNS-1123 subdomain"),
                        "an object name, e.g. \"single-gpu\"",
                    );
                }
                _ => {}
            }
            if let Some(source) = claim.map(crate::dra::ClaimSource::Claim).or(template.map(crate::dra::ClaimSource::Template)) {
                out.push(crate::dra::PodClaim { name: name.clone(), source });
            }
            names.push(name);
        }
    }
    for field in ["initContainers", "containers"] {
        let Some(cs) = spec.get(field) else { continue };
        for c in sink.list(&cs) {
            let Some(res) = c.get("resources") else { continue };
            let Some(claims) = res.get("claims") else { continue };
            let mut used: Vec<(String, String)> = Vec::new();
            for cl in sink.list(&claims) {
                let name = sink.opt_scalar(&cl, "name").unwrap_or_default();
                let request = sink.opt_scalar(&cl, "request").unwrap_or_default();
                if name.is_empty() {
                    sink.error(
                        &cl,
                        "required",
                        "a container resource claim needs a `name`",
                        "the name of one of the pod's spec.resourceClaims",
                    );
                } else if !names.contains(&name) {
                    sink.error(
                        &cl,
                        "unknown-resource-claim",
                        format!("container claim {name:?} is not declared in spec.resourceClaims"),
                        if names.is_empty() {
                            "declare it in spec.resourceClaims".to_string()
                        } else {
                            format!("one of {}", names.join(", "))
                        },
                    );
                } else if used.contains(&(name.clone(), request.clone())) {
                    sink.error(
                        &cl,
                        "duplicate",
                        format!("container claim {name:?} is consumed twice"),
                        "each claim (and request) once per container",
                    );
                }
                used.push((name, request));
            }
        }
    }
    if out.len() < names.len() {
        // An invalid reference was reported above; the pod still has DRA requirements.
        out.truncate(0);
        out.extend(names.iter().map(|n| crate::dra::PodClaim { name: n.clone(), source: crate::dra::ClaimSource::Claim(String::new()) }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(spec: serde_json::Value) -> (bool, Vec<String>) {
        let mut errors = Vec::new();
        let root = At::root(&spec, "spec");
        let mut sink = Sink { document: 0, object: &|| "Pod/p".into(), errors: &mut errors };
        let dra = !resource_claims(&root, &mut sink).is_empty();
        (dra, errors.iter().map(|e| format!("{} {}", e.path.clone().unwrap_or_default(), e.message)).collect())
    }

    #[test]
    fn a_template_claim_consumed_by_a_container_is_dra() {
        let (dra, errs) = check(json!({
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}],
            "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}]
        }));
        assert!(dra);
        assert!(errs.is_empty(), "{errs:?}");
    }

    #[test]
    fn a_pod_without_claims_is_not_dra() {
        let (dra, errs) = check(json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}));
        assert!(!dra);
        assert!(errs.is_empty());
    }

    #[test]
    fn the_apiserver_rules_are_located_errors() {
        let (_, errs) = check(json!({
            "resourceClaims": [
                {"name": "Gpu", "resourceClaimName": "a"},
                {"name": "x", "resourceClaimName": "a", "resourceClaimTemplateName": "b"},
                {"name": "y"}
            ],
            "containers": [{"name": "c", "resources": {"claims": [{"name": "nope"}]}}]
        }));
        assert_eq!(errs.len(), 4, "{errs:?}");
        assert!(errs[0].contains("resourceClaims[0].name") && errs[0].contains("DNS-1123 label"), "{errs:?}");
        assert!(errs[1].contains("resourceClaims[1]") && errs[1].contains("exactly one"), "{errs:?}");
        assert!(errs[2].contains("resourceClaims[2]") && errs[2].contains("exactly one"), "{errs:?}");
        assert!(errs[3].contains("containers[0].resources.claims[0]") && errs[3].contains("not declared"), "{errs:?}");
    }
}

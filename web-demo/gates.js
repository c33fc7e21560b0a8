// The feature-gate control (docs/feature-gates.md, "In the playground"): Karpenter's
// --feature-gates and the AWS provider's --aws-feature-gates, as their flags spell them, turned
// into the request's `settings`. The page passes the text as typed; the core alone parses it and
// reports a misspelt gate, a bad value or a gate it does not model (set away from its default)
// as a located error, so nothing here knows the gates or their defaults.

/**
 * The request settings for `gates` (Karpenter's flag text), `awsGates` (the AWS provider's flag
 * text) and `extra` (`Name=value` items a checkbox adds; later items win, as in Karpenter's
 * flag). Empty parts are left out, so the core's defaults apply.
 */
export function gateSettings({ gates = '', awsGates = '', extra = [] }) {
  const s = {};
  const flag = [gates.trim(), ...extra].filter((g) => g).join(',');
  if (flag) s.featureGates = flag;
  if (awsGates.trim()) s.awsFeatureGates = awsGates.trim();
  return s;
}

/**
 * Wires the AWS gates field (`#aws-gates`) to `state.awsGates`: `onChange` runs after each edit.
 * The consolidation tab reads the same two fields (one Karpenter per cluster).
 */
export function bindAwsGates(state, $, onChange) {
  $('aws-gates').addEventListener('input', () => {
    state.awsGates = $('aws-gates').value;
    onChange();
  });
}

/** The link state of the AWS gates field (only when set) and its restore. */
export const awsGatesSnapshot = (state, s) => {
  if (state.awsGates) s.awsGates = state.awsGates;
};
export function restoreAwsGates(state, s, $) {
  state.awsGates = typeof s.awsGates === 'string' ? s.awsGates : '';
  $('aws-gates').value = state.awsGates;
}

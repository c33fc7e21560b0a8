// The playground's quantities, durations and chart ticks as text: pure functions of their
// arguments (no DOM), shared by every tab's rendering.
const SUFFIX = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
export function parseQuantity(q) {
  if (q === undefined || q === null) return 0;
  if (typeof q === 'number') return q;
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?\s*$/.exec(String(q));
  if (!m) return NaN;
  return parseFloat(m[1]) * (m[2] ? SUFFIX[m[2]] : 1);
}
export function fmtNumber(x, digits = 2) {
  if (!isFinite(x)) return '?';
  return Number(x.toFixed(digits)).toLocaleString('en-US', { maximumFractionDigits: digits, useGrouping: false });
}
export function fmtBytes(b) {
  if (!isFinite(b)) return '?';
  if (b === 0) return '0';
  // Gi up to 10000Gi (instance sizes read 1152Gi, not 1.1Ti).
  const units = ['B', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let i = 0;
  while ((i < 3 ? b >= 1024 : b >= 10240) && i < units.length - 1) {
    b /= 1024;
    i++;
  }
  return `${fmtNumber(b, b >= 100 ? 0 : 1)}${units[i]}`;
}
export function fmtResource(key, q) {
  const v = parseQuantity(q);
  if (key === 'memory' || key === 'ephemeral-storage' || /storage|memory/.test(key)) return fmtBytes(v);
  if (key === 'cpu') return `${fmtNumber(v, 2)} vCPU`;
  return fmtNumber(v, 2);
}
// Limits: memory-like quantities in binary units (7577Mi of 4000Gi → 7.4Gi of 4000Gi), others as given.
export const fmtLimit = (key, q) => (/memory|storage/.test(key) ? fmtBytes(parseQuantity(q)) : q);
// Prices exactly as the core gives them (5.672, 0.29328), never rounded to cents per hour.
export const plural = (n, one, many = one + 's') => `${n} ${n === 1 ? one : many}`;
export const pct = (x) => `${Math.round(x * 100)}%`;

// Long resource names shortened for the row label (the full name is its title).
export const shortKey = (key) => (key.length > 16 ? key.split('/').pop() : key);

// Dollars with cents and thousands separators, as the CLI prints a simulation's totals.
export const fmtUsd = (x) => `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
/** `1d 2h03m`, `5h00m`, `12m30s`, `45s` (as the CLI prints durations). */
export function fmtDuration(sec) {
  let s = Math.max(0, Math.round(sec));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hh = Math.floor(s / 3600);
  s -= hh * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d) return `${d}d ${hh}h${two(m)}m`;
  if (hh) return `${hh}h${two(m)}m`;
  if (m) return `${m}m${two(s)}s`;
  return `${s}s`;
}
/** Axis label of a time in seconds: `6h`, `1d`, `1d12h`, `30m`. */
export function fmtTick(t) {
  if (t >= 86400) return t % 86400 === 0 ? `${t / 86400}d` : `${Math.floor(t / 86400)}d${Math.floor((t % 86400) / 3600)}h`;
  if (t >= 3600) return t % 3600 === 0 ? `${t / 3600}h` : `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}`;
  return t === 0 ? '0h' : `${Math.floor(t / 60)}m`;
}
/** A round step for `n` ticks up to `top` (1, 2, 2.5 or 5 × 10^k). */
export function niceStep(top, n = 4) {
  const raw = top / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
export function tickStep(total) {
  for (const step of [60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400, 172800, 604800]) if (total / step <= 12) return step;
  return 2592000;
}

// Tabs (WAI-ARIA tabs pattern): selecting one shows its panel and runs what the tab registered
// with onTabShown (its request), so this module knows nothing of the requests.
import { $ } from './editors.js';
import { state } from './state.js';

// Tabs (WAI-ARIA tabs pattern: buttons with aria-selected, arrow keys move between them).
export const TABS = ['plan', 'consolidate', 'simulate'];
const shownHandlers = {};
/** Registers what showing each tab runs: `{plan: fn, consolidate: fn, simulate: fn}`. */
export function onTabShown(handlers) {
  Object.assign(shownHandlers, handlers);
}
export function selectTab(name, focus = false) {
  state.tab = name;
  for (const t of TABS) {
    const btn = $(`tab-${t}`);
    const on = t === name;
    btn.setAttribute('aria-selected', String(on));
    btn.tabIndex = on ? 0 : -1;
    $(`panel-${t}`).hidden = !on;
    if (on && focus) btn.focus();
  }
  shownHandlers[name]?.();
}
export function initTabs() {
  for (const t of TABS) {
    const btn = $(`tab-${t}`);
    btn.addEventListener('click', () => selectTab(t));
    btn.addEventListener('keydown', (ev) => {
      const i = TABS.indexOf(t);
      let j = null;
      if (ev.key === 'ArrowRight') j = (i + 1) % TABS.length;
      else if (ev.key === 'ArrowLeft') j = (i - 1 + TABS.length) % TABS.length;
      else if (ev.key === 'Home') j = 0;
      else if (ev.key === 'End') j = TABS.length - 1;
      if (j !== null) {
        ev.preventDefault();
        selectTab(TABS[j], true);
      }
    });
  }
}

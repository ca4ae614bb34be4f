import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** The two sizes every console page must work at: a laptop and a phone. */
export const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** Nothing wider than the window: the page reads without scrolling sideways. */
export const overflowsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

/** The elements reaching past the window's right edge, for a failure message. */
export const widest = (page: Page) => page.evaluate(() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 5)
  .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
  .join(', '));

/** axe's serious and critical violations on the page as it is, each with up to three of its elements. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

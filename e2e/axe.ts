// axe-core over the page as it is, in light and in dark theme: every serious or critical violation, and
// every violation of a WCAG 2 A/AA rule whatever its impact, as readable lines naming the screen, the
// theme, the rule and the nodes.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Violation = { id: string; impact: string | null; tags: string[]; help: string; nodes: { target: unknown[] }[] };

const WCAG2 = ['wcag2a', 'wcag2aa'];

export async function axeFindings(page: Page, screen: string): Promise<string[]> {
  // Evaluated through the debugging protocol, which the page's CSP does not govern (a script tag would be refused).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t;
      document.documentElement.style.colorScheme = t;
    }, theme);
    // Colours are read from computed styles: wait for the theme's transitions (buttons fade theirs) to end. Endless
    // animations (a spinner) and finished ones still filling (the control badge's hide) change no colour.
    const settling = () => document.getAnimations()
      .filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity).length;
    await expect.poll(() => page.evaluate(settling)).toBe(0);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: Violation[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ['violations'] })).violations;
    });
    for (const v of violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical' && !v.tags.some((t) => WCAG2.includes(t))) continue;
      found.push(`${screen} (${theme}): ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    }
  }
  return found;
}

/**
 * Debian's Chromium driven by playwright-core (no browser download): launched headless with the flags this
 * machine's closed network needs and a fresh profile, plus the page checks the browser tests share.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.TESSERA_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts/web');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium), as .ci/run does`,
    );
  const profile = mkdtempSync(path.join(tmpdir(), 'tessera-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot under test/artifacts/web (gitignored) for people to look at. */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2 A and AA rules on the page as it is: every serious or critical violation, described. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((results) =>
      results.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(' ')),
      })),
    )
  `);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.slice(0, 3).join(', ')}`);
}

import { type Browser, type BrowserContext, type Page, chromium } from '@playwright/test';
import { expect } from 'chai';
import path from 'node:path';
import { projectRoot } from '../../src/infra/project-root.js';
import { env } from '../support/harness.js';

/**
 * Debian's Chromium (scripts/install-deps installs it), driven by Playwright: its own browser download
 * cannot work here. SwiftShader gives sigma.js its WebGL without a GPU.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    ],
  });
}

export const consoleUrl = (rest = '') => `${env.service.url}/console${rest}`;

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy violations and uncaught errors seen so far (in a consoleInChromium tab, console errors too). */
  problems: string[];
}

/** A fresh context (no storage shared with other tests) at 1280×800, collecting CSP violations and page errors. */
export async function openConsole(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.service.url });
  const page = await context.newPage();
  const problems: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /CSP violation|Refused to/.test(msg.text())) problems.push(msg.text());
  });
  return { context, page, problems };
}

type Viewport = { width: number; height: number };

/**
 * One Chromium for the calling describe block, and fresh tabs for its tests: registers the block's before, after and
 * afterEach hooks. Every tab opened by a test is closed after it, and a test that passed fails if any of its tabs saw
 * a CSP violation, an uncaught error or any console error: the console logs none on its own.
 *
 * Chromium itself logs "Failed to load resource" for every answer of status 400 or more; `refusedStatuses` names the
 * statuses a block asks for on purpose (a wrong token, a refused write), whose lines are then not problems.
 */
export function consoleInChromium(options: { refusedStatuses?: number[] } = {}): { tab(viewport?: Viewport): Promise<ConsolePage> } {
  const refused = options.refusedStatuses?.length
    ? new RegExp(`^Failed to load resource: the server responded with a status of (${options.refusedStatuses.join('|')})\\b`)
    : undefined;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  afterEach(async function () {
    const problems = opened.flatMap((cp) => cp.problems);
    for (const cp of opened.splice(0)) await cp.context.close();
    if (this.currentTest?.state === 'passed') expect(problems).to.deep.equal([]);
  });

  return {
    /** A fresh context at `viewport` (1280×800 unless given). */
    async tab(viewport?: Viewport): Promise<ConsolePage> {
      const cp = await openConsole(browser, viewport);
      cp.page.on('console', (msg) => {
        const text = msg.text();
        // openConsole already counts CSP refusals.
        if (msg.type() === 'error' && !/CSP violation|Refused to/.test(text) && !refused?.test(text)) {
          cp.problems.push(`console error: ${text} (${msg.location().url})`);
        }
      });
      opened.push(cp);
      return cp;
    },
  };
}

/** Signs in through the sign-in form. */
export async function signIn(page: Page, key: string, at = ''): Promise<void> {
  await page.goto(consoleUrl(at));
  await page.getByLabel('User key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Waits for the graph container to be rendered and returns its counts. */
export async function graphReady(page: Page, timeout = 30_000): Promise<{ nodes: number; edges: number; readyMs: number }> {
  const graph = page.getByTestId('graph');
  await page.locator('[data-testid="graph"][data-ready="true"]').waitFor({ timeout });
  return {
    nodes: Number(await graph.getAttribute('data-node-count')),
    edges: Number(await graph.getAttribute('data-edge-count')),
    readyMs: Number(await graph.getAttribute('data-ready-ms')),
  };
}

declare global {
  interface Window {
    /** The console's graph model (console/src/graph/). */
    __consoleGraph?: import('graphology').default;
    /** The graph view's probe (console/src/graph/). */
    __consoleGraphView?: {
      node(id: string): { x: number; y: number; radius: number } | null;
      labels(): { id: string; left: number; top: number; width: number; height: number }[];
      hoverLabel(): string | null;
    };
  }
}

/**
 * Where the console tests write a screenshot of each page at each size, for a reviewer (git-ignored). Playwright's
 * screenshot makes the folders of its path when it writes, so no test creates them.
 */
export const screenshotDir = path.join(projectRoot, 'test-output', 'screenshots');

import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createNode, getNode } from '../support/nodes.js';
import { until } from '../support/waits.js';
import { consoleInChromium, type ConsolePage, signIn } from './browser.js';

/** The middle of the left edge of the first occurrence of `word` in the editor, in viewport pixels. */
const startOf = (page: Page, word: string) => page.evaluate((w) => {
  const walker = document.createTreeWalker(document.querySelector('.cm-content')!, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent!.indexOf(w);
    if (at === -1) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + w.length);
    const r = range.getBoundingClientRect();
    return { x: r.left + 1, y: r.top + r.height / 2, width: r.width };
  }
  throw new Error(`${w} is not in the editor`);
}, word);

describe('the console’s markdown editor under the page’s CSP, in Chromium', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;
  let cp: ConsolePage;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Editor input') });
  });
  beforeEach(async () => {
    cp = await chromium.tab();
    page = cp.page;
  });

  it('typing, pasting and deleting over a selection in the editor logs no CSP refusal and keeps the text', async () => {
    const target = await createNode(workspace, { title: unique('Target'), slug: unique('target') });
    const node = await createNode(workspace, { title: unique('Typing'), content: 'alpha one two\nbeta **three** four\ngamma five\nSee [[\ndelta six' });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    const editor = page.getByLabel('Content (markdown)');
    const keys = async (...pressed: string[]) => {
      for (const key of pressed) await page.keyboard.press(key);
    };
    const step = async (what: string, act: () => Promise<void>, text: string) => {
      await act();
      await until(what, () => editor.innerText(), (t) => t === text);
      // The history joins edits made close together into one undo step: later steps wait past its grouping delay.
      await page.waitForTimeout(600);
    };
    const typed = 'alpha 1 two\nbeta **three** four\ngamma five\nSee [[\ndelta six';

    await step('a word chosen by double-click, typed over', async () => {
      const one = await startOf(page, 'one');
      await page.mouse.dblclick(one.x + one.width / 2, one.y);
      await page.keyboard.type('1');
    }, typed);
    // Across lines, from the keyboard: the one Chromium would join with styled markup the CSP refuses.
    await step('a selection across lines, typed over', async () => {
      await keys('Control+Home', 'Shift+ArrowDown', 'Shift+ArrowRight');
      await page.keyboard.type('Z');
    }, 'Zeta **three** four\ngamma five\nSee [[\ndelta six');
    await step('undone', () => keys('Control+z'), typed);
    await step('a selection across lines made with the mouse, typed over', async () => {
      // Undo selected the text back: pressing inside a selection would drag it instead.
      await keys('Control+End');
      const [from, to] = [await startOf(page, '1'), await startOf(page, 'five')];
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 5 });
      await page.mouse.up();
      await page.keyboard.type('M');
    }, 'alpha Mfive\nSee [[\ndelta six');
    await step('undone again', () => keys('Control+z'), typed);
    await step('a selection across lines, pasted over', async () => {
      await page.evaluate(() => navigator.clipboard.writeText('pasted\ntext '));
      await keys('Control+Home', 'ArrowDown', 'Shift+ArrowDown', 'Shift+ArrowDown', 'Control+v');
    }, 'alpha 1 two\npasted\ntext See [[\ndelta six');
    await step('a selection across lines, deleted with Backspace', () => keys('Control+Home', 'End', 'Shift+ArrowDown', 'Shift+End', 'Backspace'),
      'alpha 1 two\ntext See [[\ndelta six');
    // The editor's input handlers still see the typing: a bracket wraps the selection.
    await step('a bracket typed over a selection across lines', async () => {
      await keys('Control+Home', 'Shift+ArrowDown', 'Shift+ArrowRight');
      await page.keyboard.type('(');
    }, '(alpha 1 two\nt)ext See [[\ndelta six');
    await step('the bracket undone', () => keys('Control+z'), 'alpha 1 two\ntext See [[\ndelta six');
    // An input method composes over a selection across lines as before.
    await step('a composition over a selection across lines', async () => {
      await keys('Control+Home', 'Shift+ArrowDown');
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Input.imeSetComposition', { text: 'k', selectionStart: 1, selectionEnd: 1 });
      await cdp.send('Input.imeSetComposition', { text: 'ka', selectionStart: 2, selectionEnd: 2 });
      await cdp.send('Input.insertText', { text: 'か' });
      await cdp.detach();
    }, 'かtext See [[\ndelta six');
    // Typing over lines after [[ still opens the list of slugs.
    await step('a slug completed after typing over lines', async () => {
      await keys('Control+Home', 'End', 'Shift+ArrowDown', 'Shift+End');
      await page.keyboard.type('t');
      await page.locator('.cm-tooltip-autocomplete li', { hasText: target.slug }).click();
    }, `かtext See [[${target.slug}]]`);
    await step('everything, typed over', async () => {
      await keys('Control+a');
      await page.keyboard.type('W');
    }, 'W');
    await step('everything back', () => keys('Control+z'), `かtext See [[${target.slug}]]`);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(`Saved ${node.slug}.`).waitFor();
    expect((await getNode(workspace, node.id)).content).to.equal(`かtext See [[${target.slug}]]`);
    expect(cp.problems).to.deep.equal([]);
  });
});

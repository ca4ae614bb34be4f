import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningService } from '../../src/runtime.js';
import { createWorkspace, request } from '../support/api.js';
import { embeddedProviderEnv } from '../support/embeddings.js';
import { startExtraService } from '../support/harness.js';
import { importFolderInto } from '../support/vault.js';
import { until } from '../support/waits.js';

const vault = fileURLToPath(new URL('../fixtures/vaults/zettlr/docs', import.meta.url));

/**
 * Real notes in four languages and scripts (Zettlr's documentation: German, French, Japanese, Spanish, each on
 * another topic; test/fixtures/vaults/zettlr), imported as a folder and embedded by the real embedded model: a
 * question written in a note's language, with few of its words, finds that note first.
 */
describe('finding context by meaning in the notes’ own languages', function () {
  this.timeout(240_000);
  let api: RunningService;
  const questions: [string, string][] = [
    ['Wie richte ich das Programm auf meinem Rechner ein?', 'install.md'],
    ['Comment aligner les colonnes d’un tableau ?', 'tables.md'],
    ['集中して作業するために時間を区切る機能はありますか？', 'pomodoro.md'],
    ['¿Cómo escribo ecuaciones y fórmulas en mis notas?', 'math.md'],
  ];

  before(async () => {
    api = await startExtraService(await embeddedProviderEnv());
  });
  after(() => api?.stop());

  it('a question in German, French, Japanese or Spanish finds the note in that language first', async () => {
    const w = await createWorkspace();
    // The CLI's import (as `npm run cli -- import`) reaches the service at API_URL: here the one that embeds.
    const savedUrl = process.env.API_URL;
    process.env.API_URL = api.url;
    const report = await importFolderInto(w, vault).finally(() => {
      if (savedUrl === undefined) delete process.env.API_URL;
      else process.env.API_URL = savedUrl;
    });
    expect(report.created, JSON.stringify(report.errors)).to.have.length(4);
    const call = (method: string, rest: string, body?: unknown) => request(method, w.path(rest), { baseUrl: api.url, token: w.owner.key, body });
    await until('the notes embedded', async () => (await call('GET', '/embeddings')).body, (s) => s.total === 4 && s.pending === 0, 180_000);
    for (const [q, file] of questions) {
      const res = await call('POST', '/context/query', { q, depth: 0 });
      expect(res.status, res.text).to.equal(200);
      const first = res.body.nodes[0];
      const detail = await call('GET', `/context-nodes/${first.id}`);
      expect(path.basename(detail.body.sourcePath ?? ''), `${q} → ${first.title}`).to.equal(file);
      expect(first.reason.by).to.include('meaning');
    }
  });
});

/**
 * `npm run bench -- --crowded-name`: single writes beside a crowded name against the same writes in an ordinary
 * workspace. The crowded workspace holds 5,000 nodes titled "Readme" (alias "common alias", as a vault holds a
 * README per folder) and 5,000 nodes whose content links `[[Readme]]` and `[[common alias]]`; the ordinary one holds
 * as many nodes with names of their own and the same kind of links. In each, one after another and rounds
 * alternating: a new node of the name, that node renamed, its aliases cleared, and a linking node's content changed.
 * None of them changes what the name resolves to, so none should move a link: a write costs what it changes
 * (docs/graph-model.md, "Wikilinks"). The bulk batches that build each workspace are timed too.
 */
import { PlaybooksClient } from '@playbooks/client';
import { adminCreateWorkspace } from '@playbooks/client/api';
import { maxImportNodes } from '../src/nodes/schemas.js';
import type { Checkout } from './checkout.js';
import { freshApi } from './fresh-api.js';
import { fmt, table } from './report.js';
import type { Options } from './options.js';
import type { Stack } from './stack.js';

const CROWD = 5_000;
const ROUNDS = 5;
/** Issue 58's bound on each single write beside the crowd (its slowest of the rounds); before, a POST took 158.8 s. */
export const TARGET_MS = 1_000;
const KINDS = ['create a namesake', 'rename it', 'clear its aliases', "change a linking node's content"] as const;
type Kind = (typeof KINDS)[number];

interface Space { name: string; client: PlaybooksClient; title: (i: number) => string; linker: string; batchesMs: number[] }

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function runCrowdedName(o: Options, stack: Stack, checkout: Checkout) {
  const { api, admin, user, key } = await freshApi(o, stack, checkout, 'crowded-name');

  const space = async (name: string, title: (i: number) => string): Promise<Space> => {
    const { data: { id } } = await adminCreateWorkspace({ client: admin, body: { name, ownerUserId: user.id, plan: 'enterprise' }, throwOnError: true });
    const client = new PlaybooksClient({ baseUrl: api.url, apiKey: key, workspaceId: id, retry: false, timeoutMs: 30 * 60_000 });
    const batchesMs: number[] = [];
    const ids = new Map<string, string>();
    const bulk = async (nodes: { slug: string; title: string; description: string; aliases?: string[]; content?: string }[]) => {
      for (let i = 0; i < nodes.length; i += maxImportNodes) {
        batchesMs.push(await timed(async () => {
          for (const node of (await client.nodes.import({ nodes: nodes.slice(i, i + maxImportNodes) })).nodes) ids.set(node.slug, node.id!);
        }));
      }
    };
    await client.nodes.create({ title: 'The canonical one', slug: 'readme', description: 'What [[Readme]] names' });
    await bulk(Array.from({ length: CROWD }, (_, i) => ({ slug: `namesake-${i}`, title: title(i), aliases: [title(i) === 'Readme' ? 'common alias' : `alias ${i}`], description: `Namesake ${i}` })));
    await bulk(Array.from({ length: CROWD }, (_, i) => ({ slug: `linker-${i}`, title: `Linker ${i}`, description: 'links', content: title(i) === 'Readme' ? 'See [[Readme]] and [[common alias]].' : `See [[${title(i)}]] and [[alias ${i}]].` })));
    console.log(`  ${name}: bulk batches of ${maxImportNodes} ${batchesMs.map((ms) => fmt(ms / 1000, 1)).join(', ')} s`);
    return { name, client, title, linker: ids.get('linker-7')!, batchesMs };
  };
  console.log(`\n== building two workspaces of ${CROWD} named nodes and ${CROWD} linking nodes`);
  const crowded = await space('Crowded name', () => 'Readme');
  const ordinary = await space('Names of their own', (i) => `Note ${i}`);

  const times = new Map<string, number[]>();
  const record = (s: Space, kind: Kind, ms: number) => times.set(`${s.name}\t${kind}`, [...(times.get(`${s.name}\t${kind}`) ?? []), ms]);
  const writeRound = async (s: Space, round: number) => {
    let id = '';
    record(s, KINDS[0], await timed(async () => { id = (await s.client.nodes.create({ title: s.title(0), slug: `zz-bench-namesake-round-${round + 1}`, aliases: ['common alias'], description: 'bench' })).id; }));
    record(s, KINDS[1], await timed(() => s.client.nodes.update(id, { title: `Renamed ${round + 1}` })));
    record(s, KINDS[2], await timed(() => s.client.nodes.update(id, { aliases: [] })));
    record(s, KINDS[3], await timed(() => s.client.nodes.update(s.linker, { content: `Round ${round}: see [[${s.title(0)}]].` })));
  };
  console.log(`\n== ${ROUNDS} rounds of each write, the workspaces alternating (one unmeasured round each first)`);
  for (const s of [crowded, ordinary]) await writeRound(s, -1);
  times.clear();
  for (let round = 0; round < ROUNDS; round++) for (const s of round % 2 ? [ordinary, crowded] : [crowded, ordinary]) await writeRound(s, round);

  const rows = KINDS.map((kind) => {
    const c = times.get(`${crowded.name}\t${kind}`)!;
    const n = times.get(`${ordinary.name}\t${kind}`)!;
    const ratio = median(c) / median(n);
    return { kind, crowdedP50: median(c), crowdedMax: Math.max(...c), ordinaryP50: median(n), ordinaryMax: Math.max(...n), ratio };
  });
  const batches = { crowded: crowded.batchesMs, ordinary: ordinary.batchesMs };
  const out = (markdown: boolean) => [
    ...table(['write', `beside ${CROWD} namesakes p50 / max ms`, 'ordinary p50 / max ms', 'p50 ratio', `max < ${TARGET_MS} ms`],
      rows.map((r) => [r.kind, `${fmt(r.crowdedP50, 0)} / ${fmt(r.crowdedMax, 0)}`, `${fmt(r.ordinaryP50, 0)} / ${fmt(r.ordinaryMax, 0)}`, fmt(r.ratio, 2), r.crowdedMax < TARGET_MS ? 'met' : 'MISSED']),
      markdown, 'lrrrl'),
    '', `Bulk batches of ${maxImportNodes} (s): crowded ${batches.crowded.map((ms) => fmt(ms / 1000, 1)).join(', ')}; ordinary ${batches.ordinary.map((ms) => fmt(ms / 1000, 1)).join(', ')}.`,
  ];
  console.log(['', '== single writes beside a crowded name', ...out(false)].join('\n'));
  return { md: ['', '### Writes beside a crowded name', '', ...out(true)], json: { crowd: CROWD, rounds: ROUNDS, targetMs: TARGET_MS, writes: rows, batchesMs: batches } };
}

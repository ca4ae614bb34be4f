import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { linkTypes } from '@playbooks/client';
import { expect } from 'chai';
import { type Reply, type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { allNodes, createNode, getNode, listNodes } from '../support/nodes.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';
import { parseWikilinks } from '../../src/nodes/wikilinks.js';

/**
 * Many clients writing to one workspace at once. Every rule that used to hold because writes to a workspace ran
 * one at a time must still hold when they overlap: one node per slug, -2, -3, … without gaps or repeats, one link
 * per (source, target, type), wikilinks that resolve whatever the order of the writes, one approved version.
 * Each test arranges its own workspace and data, fires its requests together (Promise.all) from several
 * callers, and, where a race is a matter of luck, repeats it for a few rounds. Only documented behaviour is
 * asserted (docs/api.md, docs/graph-model.md "Wikilinks", docs/import-export.md, the OpenAPI route descriptions).
 */

/** A short tag that keeps each round's names apart (lowercase hex, so it fits slugs and titles alike). */
const tag = () => randomUUID().slice(0, 8);

/** A workspace with its owner and three editors, so that the racing requests come from different callers. */
interface Arena {
  ws: TestWorkspace;
  token: (i: number) => string;
}
async function arena(): Promise<Arena> {
  const ws = await createWorkspace();
  const tokens = [ws.owner.key];
  for (let i = 0; i < 3; i += 1) tokens.push((await addMember(ws, 'editor')).key);
  return { ws, token: (i) => tokens[i % tokens.length] };
}

const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort().join(',');

/** No answer is a 5xx; the message names each one with its body. */
function noServerErrors(replies: Reply[], what: string): void {
  const failed = replies.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.text.slice(0, 400)}`);
  expect(failed, `${what}: answers that are 5xx`).to.deep.equal([]);
}

/** Every answer has one of the given statuses (each shown with its body otherwise). */
function onlyStatuses(replies: Reply[], allowed: number[], what: string): void {
  noServerErrors(replies, what);
  const odd = replies.filter((r) => !allowed.includes(r.status)).map((r) => `${r.status} ${r.text.slice(0, 400)}`);
  expect(odd, `${what}: answers other than ${allowed.join('/')}`).to.deep.equal([]);
}

const post = (a: Arena, i: number, path: string, body?: unknown) => request('POST', a.ws.path(path), { token: a.token(i), body });
const patch = (a: Arena, i: number, path: string, body: unknown) => request('PATCH', a.ws.path(path), { token: a.token(i), body });

const wikilinkTargets = (detail: any): string[] => detail.outgoingLinks.filter((l: any) => l.origin === 'wikilink').map((l: any) => l.targetId).sort();

/**
 * For a workspace whose wikilinks name nodes by slug only (titles there hold spaces, so no title or alias can
 * be one of the names): every node's wikilink links are exactly the names of its stored content that some other
 * node has as its slug, and its unresolvedLinks exactly the names nobody has, as written.
 */
async function expectLinksMatchContent(ws: TestWorkspace, what: string): Promise<void> {
  const nodes = await allNodes(ws, 'all');
  const bySlug = new Map<string, any>(nodes.map((n) => [n.slug, n]));
  const details = await Promise.all(nodes.map((n) => getNode(ws, n.id)));
  const wrong: string[] = [];
  for (const d of details) {
    const names = parseWikilinks(d.content);
    const expectedTargets = names.filter((l) => bySlug.has(l.key) && bySlug.get(l.key).id !== d.id).map((l) => bySlug.get(l.key).id).sort();
    const expectedUnresolved = names.filter((l) => !bySlug.has(l.key)).map((l) => l.text).sort();
    const targets = wikilinkTargets(d);
    const unresolved = [...d.unresolvedLinks].sort();
    if (JSON.stringify(targets) !== JSON.stringify(expectedTargets) || JSON.stringify(unresolved) !== JSON.stringify(expectedUnresolved)) {
      const slugOf = (id: string) => nodes.find((n) => n.id === id)?.slug ?? id;
      wrong.push(`${d.slug} with content ${JSON.stringify(d.content)} links to [${targets.map(slugOf)}] and leaves [${unresolved}] unresolved; ` +
        `expected [${expectedTargets.map(slugOf)}] and [${expectedUnresolved}]`);
    }
  }
  expect(wrong, `${what}: nodes whose links do not match their content`).to.deep.equal([]);
}

describe('write races: concurrent writes to one workspace keep its rules', function () {
  // Ceilings only: the machine is shared; nothing here asserts how long anything takes.
  this.timeout(120_000);

  describe('slugs', () => {
    it('many creates with one explicit slug: exactly one 201, every other 409 slug_taken, and one node has the slug', async () => {
      const a = await arena();
      const rounds = 3;
      const clients = 24;
      for (let round = 0; round < rounds; round += 1) {
        const slug = `same-slug-${tag()}`;
        const replies = await Promise.all(Array.from({ length: clients }, (_, i) =>
          post(a, i, '/context-nodes', { title: `Claimant ${round} ${i}`, description: 'd', slug })));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        const won = replies.filter((r) => r.status === 201);
        expect(won, `round ${round}: one 201 (${statuses(replies)})`).to.have.length(1);
        expect(won[0].body.slug).to.equal(slug);
        for (const r of replies.filter((x) => x.status !== 201)) problem(r, 409, 'slug_taken');
        const holders = (await allNodes(a.ws, 'all')).filter((n) => n.slug === slug);
        expect(holders.map((n) => n.id), `round ${round}: the nodes with slug ${slug}`).to.deep.equal([won[0].body.id]);
      }
      // The losers left nothing behind.
      expect(await allNodes(a.ws, 'all')).to.have.length(rounds);
    });

    it('creates and PATCHes claiming one slug at once: exactly one succeeds, the rest are 409 slug_taken and keep their slugs', async () => {
      const a = await arena();
      for (let round = 0; round < 2; round += 1) {
        const existing = await Promise.all(Array.from({ length: 10 }, (_, i) => createNode(a.ws, { title: `Existing ${round} ${i} ${tag()}` })));
        const slug = `contested-${tag()}`;
        const replies = await Promise.all([
          ...existing.map((n, i) => patch(a, i, `/context-nodes/${n.id}`, { slug })),
          ...Array.from({ length: 10 }, (_, i) => post(a, i + 1, '/context-nodes', { title: `Newcomer ${round} ${i}`, description: 'd', slug })),
        ]);
        onlyStatuses(replies, [200, 201, 409], `round ${round}`);
        const won = replies.filter((r) => r.status === 200 || r.status === 201);
        expect(won, `round ${round}: one success (${statuses(replies)})`).to.have.length(1);
        for (const r of replies.filter((x) => x.status === 409)) problem(r, 409, 'slug_taken');
        const nodes = await allNodes(a.ws, 'all');
        expect(nodes.filter((n) => n.slug === slug).map((n) => n.id)).to.deep.equal([won[0].body.id]);
        for (const n of existing) {
          if (n.id !== won[0].body.id) expect(nodes.find((m) => m.id === n.id)!.slug, 'a PATCH that lost keeps its slug').to.equal(n.slug);
        }
        const slugs = nodes.map((n) => n.slug);
        expect(new Set(slugs).size, 'slugs are unique in the workspace').to.equal(slugs.length);
      }
    });

    it('many creates with one title and no slug: all 201 with the slugs base, base-2 … base-N', async () => {
      const a = await arena();
      const clients = 20;
      for (let round = 0; round < 3; round += 1) {
        const t = tag();
        const base = `race-title-${t}`;
        // Titles that differ in case and punctuation but slugify alike.
        const titles = [`Race Title ${t}`, `race title ${t}!`, `RACE—TITLE ${t}`, `  Race, Title: ${t}  `];
        const replies = await Promise.all(Array.from({ length: clients }, (_, i) =>
          post(a, i, '/context-nodes', { title: titles[i % titles.length], description: 'd' })));
        onlyStatuses(replies, [201], `round ${round}`);
        const expected = [base, ...Array.from({ length: clients - 1 }, (_, i) => `${base}-${i + 2}`)].sort();
        expect(replies.map((r) => r.body.slug).sort(), `round ${round}: the slugs given`).to.deep.equal(expected);
        const stored = (await allNodes(a.ws, 'all')).filter((n) => n.slug === base || n.slug.startsWith(`${base}-`));
        expect(stored.map((n) => n.slug).sort(), `round ${round}: the slugs stored`).to.deep.equal(expected);
      }
    });
    it('automatic slugs racing explicit claims of base, base-2 and base-5: distinct slugs, no gaps, each explicit one 201 or 409', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const t = tag();
        const base = `mixed-title-${t}`;
        const explicit = [base, `${base}-2`, `${base}-5`];
        const autos = Array.from({ length: 16 }, (_, i) => () => post(a, i, '/context-nodes', { title: `Mixed Title ${t}`, description: 'd' }));
        const claims = explicit.flatMap((slug, k) => [0, 1].map((j) => () => post(a, k + j, '/context-nodes', { title: `Claim ${j} ${slug}`, description: 'd', slug })));
        // The explicit claims go in among the automatic ones.
        const jobs = [...autos.slice(0, 5), ...claims.slice(0, 3), ...autos.slice(5, 11), ...claims.slice(3), ...autos.slice(11)];
        const replies = await Promise.all(jobs.map((job) => job()));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        const autoReplies = replies.filter((r, i) => autos.includes(jobs[i] as any));
        const claimReplies = replies.filter((r, i) => claims.includes(jobs[i] as any));
        expect(autoReplies.map((r) => r.status), `round ${round}: automatic slugs never conflict`).to.deep.equal(Array(autos.length).fill(201));
        for (const r of claimReplies.filter((x) => x.status === 409)) problem(r, 409, 'slug_taken');
        for (const slug of explicit) {
          expect(claimReplies.filter((r) => r.status === 201 && r.body.slug === slug), `round ${round}: explicit ${slug} won at most once`).to.have.length.at.most(1);
        }
        const given = replies.filter((r) => r.status === 201).map((r) => r.body.slug);
        // Each automatic slug is the first free one when it is chosen, and 16 of them reach past base-5: no gaps.
        const expected = [base, ...Array.from({ length: given.length - 1 }, (_, i) => `${base}-${i + 2}`)].sort();
        expect([...given].sort(), `round ${round}: the slugs given`).to.deep.equal(expected);
        const stored = (await allNodes(a.ws, 'all')).filter((n) => n.slug === base || n.slug.startsWith(`${base}-`));
        expect(stored.map((n) => n.slug).sort(), `round ${round}: the slugs stored`).to.deep.equal(expected);
      }
    });
  });

  describe('wikilinks', () => {
    /** One wikilink and its target, written at once: `source` links to `target` by the name `name`. */
    interface Pair {
      source: () => Promise<Reply>;
      target: () => Promise<Reply>;
      /** The target's id when it exists before the race (a rename); else the id its create answers. */
      targetId?: string;
    }

    /** Fires every pair's two requests together, several pairs at once, for `rounds` rounds; then checks each source. */
    async function race(a: Arena, rounds: number, makePairs: (round: number) => Promise<Pair[]>): Promise<void> {
      for (let round = 0; round < rounds; round += 1) {
        const pairs = await makePairs(round);
        // Half the pairs send the target first, half the source.
        const replies = await Promise.all(pairs.map((p, i) => (i % 2
          ? Promise.all([p.source(), p.target()])
          : Promise.all([p.target(), p.source()]).then(([t, s]) => [s, t]))));
        noServerErrors(replies.flat(), `round ${round}`);
        const wrong: string[] = [];
        for (const [i, [source, target]] of replies.entries()) {
          expect(source.status, `round ${round} pair ${i}: the source's create ${source.text.slice(0, 300)}`).to.equal(201);
          expect(target.status, `round ${round} pair ${i}: the target's write ${target.text.slice(0, 300)}`).to.be.oneOf([200, 201]);
          const targetId = pairs[i].targetId ?? target.body.id;
          const detail = await getNode(a.ws, source.body.id);
          const links = detail.outgoingLinks.filter((l: any) => l.origin === 'wikilink').map((l: any) => `${l.linkType}>${l.targetId}`);
          if (JSON.stringify(links) !== JSON.stringify([`references>${targetId}`]) || detail.unresolvedLinks.length) {
            wrong.push(`pair ${i} (${JSON.stringify(detail.content)}): wikilinks ${JSON.stringify(links)}, unresolved ${JSON.stringify(detail.unresolvedLinks)}, expected the target ${targetId}`);
            continue;
          }
          const incoming = (await getNode(a.ws, targetId)).incomingLinks.filter((l: any) => l.sourceId === source.body.id);
          if (incoming.length !== 1) wrong.push(`pair ${i}: the target shows ${incoming.length} incoming links from the source`);
        }
        expect(wrong, `round ${round}: sources whose wikilink did not resolve to the target written at the same time`).to.deep.equal([]);
      }
    }

    it('a wikilink by title and its target created at the same time resolve, in every round', async () => {
      const a = await arena();
      await race(a, 3, async () => Array.from({ length: 10 }, (_, i) => {
        const name = `Target Title ${tag()}`;
        return {
          source: () => post(a, i, '/context-nodes', { title: `Source ${tag()}`, description: 'd', content: `See [[${name}]]` }),
          target: () => post(a, i + 1, '/context-nodes', { title: name, description: 'd' }),
        };
      }));
    });

    it('a wikilink by slug and its target created at the same time resolve, in every round', async () => {
      const a = await arena();
      await race(a, 3, async () => Array.from({ length: 10 }, (_, i) => {
        const t = tag();
        return {
          source: () => post(a, i, '/context-nodes', { title: `Source ${t}`, description: 'd', content: `See [[target-${t}]]` }),
          target: () => post(a, i + 1, '/context-nodes', { title: `Unrelated ${t}`, slug: `target-${t}`, description: 'd' }),
        };
      }));
    });

    it('a wikilink by alias and its target created with that alias at the same time resolve, in every round', async () => {
      const a = await arena();
      await race(a, 3, async () => Array.from({ length: 10 }, (_, i) => {
        const t = tag();
        return {
          source: () => post(a, i, '/context-nodes', { title: `Source ${t}`, description: 'd', content: `See [[Nickname ${t}]]` }),
          target: () => post(a, i + 1, '/context-nodes', { title: `Unrelated ${t}`, aliases: [`Other ${t}`, `Nickname ${t}`], description: 'd' }),
        };
      }));
    });

    it('a wikilink created while its target is renamed to the name (title, alias or slug) resolves, in every round', async () => {
      const a = await arena();
      await race(a, 3, async (round) => {
        const names = Array.from({ length: 12 }, () => tag());
        const targets = await Promise.all(names.map((t) => createNode(a.ws, { title: `Draft ${t}`, slug: `b-${t}` })));
        return names.map((t, i) => {
          // By title, by alias and by slug in turn.
          const [name, change] = [
            [`Target Title ${t}`, { title: `Target Title ${t}` }],
            [`Nickname ${t}`, { aliases: [`Nickname ${t}`] }],
            [`target-${t}`, { slug: `target-${t}` }],
          ][(i + round) % 3] as [string, Record<string, unknown>];
          return {
            source: () => post(a, i, '/context-nodes', { title: `Source ${t}`, description: 'd', content: `See [[${name}]]` }),
            target: () => patch(a, i + 1, `/context-nodes/${targets[i].id}`, change),
            targetId: targets[i].id,
          };
        });
      });
    });

    it('a node renamed away from a name while another is created linking to it: the link does not point at the renamed node', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const cases = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
          const t = tag();
          const name = `Old Name ${t}`;
          // 0 and 1: the name is the title, renamed; 2 and 3: the name is an alias, removed.
          // 1 and 3: another node has the name as an alias, and must get the link once the renamed node let it go.
          const byTitle = i % 4 < 2;
          const renamed = await createNode(a.ws, byTitle ? { title: name, slug: `b-${t}` } : { title: `Holder ${t}`, slug: `b-${t}`, aliases: [name] });
          const fallback = i % 2 ? await createNode(a.ws, { title: `Fallback ${t}`, slug: `fallback-${t}`, aliases: [name] }) : undefined;
          return { name, renamed, fallback, change: byTitle ? { title: `New Name ${t}` } : { aliases: [] } };
        }));
        const replies = await Promise.all(cases.map((c, i) => Promise.all([
          patch(a, i, `/context-nodes/${c.renamed.id}`, c.change),
          post(a, i + 1, '/context-nodes', { title: `Linker ${tag()}`, description: 'd', content: `See [[${c.name}]]` }),
        ])));
        noServerErrors(replies.flat(), `round ${round}`);
        const wrong: string[] = [];
        for (const [i, [renamedReply, created]] of replies.entries()) {
          expect(renamedReply.status, `round ${round} case ${i}: the rename ${renamedReply.text.slice(0, 300)}`).to.equal(200);
          expect(created.status, `round ${round} case ${i}: the create ${created.text.slice(0, 300)}`).to.equal(201);
          const { name, renamed, fallback } = cases[i];
          const detail = await getNode(a.ws, created.body.id);
          const targets = wikilinkTargets(detail);
          const expected = fallback ? { targets: [fallback.id], unresolved: [] } : { targets: [], unresolved: [name] };
          if (targets.includes(renamed.id)) wrong.push(`case ${i}: links to the node renamed away from ${name}`);
          else if (JSON.stringify({ targets, unresolved: detail.unresolvedLinks }) !== JSON.stringify(expected)) {
            wrong.push(`case ${i}: wikilinks ${JSON.stringify(targets)}, unresolved ${JSON.stringify(detail.unresolvedLinks)}, expected ${JSON.stringify(expected)}`);
          }
          const stale = (await getNode(a.ws, renamed.id)).incomingLinks.filter((l: any) => l.sourceId === created.body.id);
          if (stale.length) wrong.push(`case ${i}: the renamed node shows an incoming link from the new node`);
        }
        expect(wrong, `round ${round}`).to.deep.equal([]);
      }
    });

    it('nodes taking one name at once (by slug, title or alias): waiting and new wikilinks go to the best holder, and only there', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const cases = await Promise.all(Array.from({ length: 4 }, async () => {
          const t = tag();
          const name = `shared-${t}`;
          const waiting = await Promise.all([0, 1, 2].map((k) => createNode(a.ws, { title: `Waiting ${k} ${t}`, content: `See [[${name}]]` })));
          return { t, name, waiting };
        }));
        const jobs = cases.flatMap(({ t, name }, c) => [
          // By rank: the slug (0) beats the title (2), which beats an alias (3); among titles, the shorter slug (its path).
          () => post(a, c, '/context-nodes', { title: `By alias ${t}`, slug: `a-${t}`, aliases: [name], description: 'd' }),
          () => post(a, c + 1, '/context-nodes', { title: name, slug: `title-long-${t}`, description: 'd' }),
          () => post(a, c + 2, '/context-nodes', { title: name, slug: `t-${t}`, description: 'd' }),
          // Every other case has no slug holder: then the title with the shorter slug wins.
          () => post(a, c + 3, '/context-nodes', { title: `By slug ${t}`, slug: c % 2 ? `other-${t}` : name, description: 'd' }),
          () => post(a, c, '/context-nodes', { title: `New linker ${t}`, content: `Also [[${name}]]`, description: 'd' }),
        ]);
        const order = jobs.map((_, i) => i).sort((x, y) => ((x * 7) % jobs.length) - ((y * 7) % jobs.length));
        const replies: Reply[] = new Array(jobs.length);
        await Promise.all(order.map(async (i) => { replies[i] = await jobs[i](); }));
        onlyStatuses(replies, [201], `round ${round}`);
        const wrong: string[] = [];
        for (const [c, { name, waiting }] of cases.entries()) {
          const made = replies.slice(c * 5, c * 5 + 5).map((r) => r.body);
          const best = c % 2 ? made[2] : made[3];
          for (const source of [...waiting, made[4]]) {
            const detail = await getNode(a.ws, source.id);
            const targets = wikilinkTargets(detail);
            if (JSON.stringify(targets) !== JSON.stringify([best.id]) || detail.unresolvedLinks.length) {
              const slugOf = (id: string) => made.find((m) => m.id === id)?.slug ?? id;
              wrong.push(`${name}: ${detail.title} links to [${targets.map(slugOf)}], unresolved ${JSON.stringify(detail.unresolvedLinks)}; expected [${best.slug}]`);
            }
          }
          for (const other of made.slice(0, 4).filter((m) => m !== best)) {
            const stray = (await getNode(a.ws, other.id)).incomingLinks.length;
            if (stray) wrong.push(`${name}: ${other.slug}, not the best holder of the name, has ${stray} incoming links`);
          }
        }
        expect(wrong, `round ${round}`).to.deep.equal([]);
      }
    });

    it('updates of one node’s content with different wikilinks at once: the final links match the final content', async () => {
      const a = await arena();
      const t = tag();
      const targets = await Promise.all(Array.from({ length: 10 }, (_, k) => createNode(a.ws, { title: `Target ${k} ${t}`, slug: `t${k}-${t}` })));
      const source = await createNode(a.ws, { title: `Source ${t}`, content: `[[t0-${t}]]` });
      const contents = Array.from({ length: 16 }, (_, i) => `v${i}: [[t${i % 10}-${t}]], [[t${(i + 3) % 10}-${t}]] and [[missing${i}-${t}]]`);
      for (let round = 0; round < 3; round += 1) {
        const replies = await Promise.all(contents.map((content, i) => patch(a, i + round, `/context-nodes/${source.id}`, { content })));
        onlyStatuses(replies, [200], `round ${round}`);
        const detail = await getNode(a.ws, source.id);
        expect(contents, `round ${round}: the stored content is one of those sent`).to.include(detail.content);
        await expectLinksMatchContent(a.ws, `round ${round}`);
        // Seen from the targets' side too: only the two the content names have an incoming wikilink from the source.
        const incoming = await Promise.all(targets.map(async (n) => (await getNode(a.ws, n.id)).incomingLinks.some((l: any) => l.sourceId === source.id)));
        const named = parseWikilinks(detail.content).map((l) => l.key);
        expect(targets.filter((_, k) => incoming[k]).map((n) => n.slug).sort(), `round ${round}: targets with an incoming link`)
          .to.deep.equal(targets.map((n) => n.slug).filter((s) => named.includes(s)).sort());
      }
    });

    it('content updates, slug renames and creates of the names racing: every node’s links match its stored content', async () => {
      const a = await arena();
      const t = tag();
      const targets = await Promise.all(Array.from({ length: 6 }, (_, k) => createNode(a.ws, { title: `Target ${k} ${t}`, slug: `t${k}-${t}` })));
      const sources = await Promise.all(Array.from({ length: 4 }, (_, k) => createNode(a.ws, { title: `Source ${k} ${t}`, content: `[[t${k}-${t}]]` })));
      for (let round = 0; round < 3; round += 1) {
        // Names that exist now, names a rename gives to a target in this round, names a create gives in this round.
        const names = [
          ...targets.map((_, k) => `t${k}-${t}`),
          ...Array.from({ length: 3 }, (_, k) => `renamed${round}-${k}-${t}`),
          ...Array.from({ length: 3 }, (_, k) => `new${round}-${k}-${t}`),
        ];
        const pick = (i: number) => names[(i * 7 + round) % names.length];
        const current = await Promise.all(targets.map((n) => getNode(a.ws, n.id)));
        const requests = [
          ...sources.flatMap((s, k) => Array.from({ length: 4 }, (_, j) =>
            () => patch(a, j, `/context-nodes/${s.id}`, { content: `[[${pick(k * 4 + j)}]] [[${pick(k * 4 + j + 1)}]] [[${pick(k * 4 + j + 5)}]]` }))),
          // Three targets give up their names (a name sources may be using) for the round's new ones.
          ...Array.from({ length: 3 }, (_, k) => () => patch(a, k, `/context-nodes/${current[(k + round) % targets.length].id}`, { slug: `renamed${round}-${k}-${t}` })),
          ...Array.from({ length: 3 }, (_, k) => () => post(a, k + 1, '/context-nodes', { title: `New ${round} ${k} ${t}`, description: 'd', slug: `new${round}-${k}-${t}` })),
        ];
        // Interleave the kinds of request.
        const order = requests.map((_, i) => i).sort((x, y) => ((x * 5) % requests.length) - ((y * 5) % requests.length));
        const replies = await Promise.all(order.map((i) => requests[i]()));
        onlyStatuses(replies, [200, 201], `round ${round}`);
        await expectLinksMatchContent(a.ws, `round ${round}`);
      }
    });
  });

  describe('links', () => {
    it('many clients create the same manual link at once: exactly one 201, the others 409 duplicate_link', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const [source, target] = await Promise.all([createNode(a.ws), createNode(a.ws)]);
        const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
          post(a, i, `/context-nodes/${source.id}/links`, { targetId: target.id, linkType: 'requires' })));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        const won = replies.filter((r) => r.status === 201);
        expect(won, `round ${round}: one 201 (${statuses(replies)})`).to.have.length(1);
        for (const r of replies.filter((x) => x.status === 409)) problem(r, 409, 'duplicate_link');
        const links = (await getNode(a.ws, source.id)).outgoingLinks.filter((l: any) => l.targetId === target.id && l.linkType === 'requires');
        expect(links.map((l: any) => l.id), `round ${round}: the source's requires links to the target`).to.deep.equal([won[0].body.id]);
        expect((await getNode(a.ws, target.id)).incomingLinks.map((l: any) => l.id)).to.deep.equal([won[0].body.id]);
      }
    });

    it('many clients create the same link from a playbook at once: exactly one 201, the others 409 duplicate_link', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const playbook = await createPlaybook(a.ws, a.ws.owner.key);
        const target = await createNode(a.ws);
        const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
          post(a, i, `/playbooks/${playbook.id}/links`, { targetId: target.id, linkType: 'references' })));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        const won = replies.filter((r) => r.status === 201);
        expect(won, `round ${round}: one 201 (${statuses(replies)})`).to.have.length(1);
        for (const r of replies.filter((x) => x.status === 409)) problem(r, 409, 'duplicate_link');
        expect((await getNode(a.ws, target.id)).incomingLinks.map((l: any) => l.id)).to.deep.equal([won[0].body.id]);
        const listed = (await getPlaybook(a.ws, a.ws.owner.key, playbook.id)).contextNodes;
        expect(listed, `round ${round}: the playbook's links`).to.have.length(1);
      }
    });

    it('every link type between one pair, each by several clients at once: one 201 per type', async () => {
      const a = await arena();
      for (let round = 0; round < 2; round += 1) {
        const [source, target] = await Promise.all([createNode(a.ws), createNode(a.ws)]);
        const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
          post(a, i, `/context-nodes/${source.id}/links`, { targetId: target.id, linkType: linkTypes[i % linkTypes.length] })));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        for (const r of replies.filter((x) => x.status === 409)) problem(r, 409, 'duplicate_link');
        expect(replies.filter((r) => r.status === 201).map((r) => r.body.linkType).sort(), `round ${round}: the links created`).to.deep.equal([...linkTypes].sort());
        expect((await getNode(a.ws, source.id)).outgoingLinks.map((l: any) => l.linkType).sort()).to.deep.equal([...linkTypes].sort());
      }
    });

    /**
     * After a manual references link A→B and a wikilink of A to B raced: A has exactly one references link to B.
     * A 201 means the manual link came first: the one link is that one, of origin manual, and stays when the
     * wikilink is edited away. A 409 duplicate_link means the wikilink came first: its link is of origin wikilink
     * and goes with it. Returns the problems found.
     */
    async function checkOneReferences(a: Arena, sourceId: string, targetId: string, manual: Reply, label: string): Promise<string[]> {
      if (manual.status === 409) problem(manual, 409, 'duplicate_link');
      else expect(manual.status, `${label}: the manual link ${manual.text.slice(0, 300)}`).to.equal(201);
      const detail = await getNode(a.ws, sourceId);
      const refs = detail.outgoingLinks.filter((l: any) => l.targetId === targetId && l.linkType === 'references');
      if (refs.length !== 1) return [`${label}: ${refs.length} references links to the target (${JSON.stringify(refs.map((l: any) => [l.id, l.origin]))})`];
      if (detail.unresolvedLinks.length) return [`${label}: unresolved ${JSON.stringify(detail.unresolvedLinks)}`];
      const manualFirst = manual.status === 201;
      if (manualFirst && (refs[0].id !== manual.body.id || refs[0].origin !== 'manual')) {
        return [`${label}: the manual link was created (${manual.body.id}) but the link is ${refs[0].id} of origin ${refs[0].origin}`];
      }
      if (!manualFirst && refs[0].origin !== 'wikilink') return [`${label}: the manual link was refused but the link is of origin ${refs[0].origin}`];
      // Editing the wikilink away keeps a link made by hand and removes one the wikilink made.
      const without = await patch(a, 0, `/context-nodes/${sourceId}`, { content: 'no links any more' });
      expect(without.status, without.text).to.equal(200);
      const left = without.body.outgoingLinks.filter((l: any) => l.targetId === targetId && l.linkType === 'references').map((l: any) => l.id);
      const expected = manualFirst ? [manual.body.id] : [];
      return JSON.stringify(left) === JSON.stringify(expected) ? [] : [`${label}: after the wikilink was removed, references links ${JSON.stringify(left)}, expected ${JSON.stringify(expected)}`];
    }

    it('a manual references link and a wikilink to the same target written at once: exactly one references link', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const pairs = await Promise.all(Array.from({ length: 10 }, async () => {
          const t = tag();
          const [source, target] = await Promise.all([createNode(a.ws, { content: 'nothing yet' }), createNode(a.ws, { slug: `target-${t}` })]);
          return { source, target, t };
        }));
        const replies = await Promise.all(pairs.map((p, i) => Promise.all([
          patch(a, i, `/context-nodes/${p.source.id}`, { content: `See [[target-${p.t}]]` }),
          post(a, i + 1, `/context-nodes/${p.source.id}/links`, { targetId: p.target.id, linkType: 'references' }),
        ])));
        noServerErrors(replies.flat(), `round ${round}`);
        const wrong: string[] = [];
        for (const [i, [edit, manual]] of replies.entries()) {
          expect(edit.status, `round ${round} pair ${i}: the content edit ${edit.text.slice(0, 300)}`).to.equal(200);
          wrong.push(...await checkOneReferences(a, pairs[i].source.id, pairs[i].target.id, manual, `pair ${i}`));
        }
        expect(wrong, `round ${round}`).to.deep.equal([]);
      }
    });

    it('a manual references link written while the target takes the name a waiting wikilink uses: exactly one references link', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const pairs = await Promise.all(Array.from({ length: 10 }, async () => {
          const t = tag();
          const [source, target] = await Promise.all([
            createNode(a.ws, { content: `See [[Wanted ${t}]]` }),
            createNode(a.ws, { title: `Draft ${t}`, slug: `b-${t}` }),
          ]);
          return { source, target, t };
        }));
        const replies = await Promise.all(pairs.map((p, i) => Promise.all([
          patch(a, i, `/context-nodes/${p.target.id}`, { title: `Wanted ${p.t}` }),
          post(a, i + 1, `/context-nodes/${p.source.id}/links`, { targetId: p.target.id, linkType: 'references' }),
        ])));
        noServerErrors(replies.flat(), `round ${round}`);
        const wrong: string[] = [];
        for (const [i, [rename, manual]] of replies.entries()) {
          expect(rename.status, `round ${round} pair ${i}: the rename ${rename.text.slice(0, 300)}`).to.equal(200);
          wrong.push(...await checkOneReferences(a, pairs[i].source.id, pairs[i].target.id, manual, `pair ${i}`));
        }
        expect(wrong, `round ${round}`).to.deep.equal([]);
      }
    });
  });

  describe('playbook slugs', () => {
    it('many creations of playbooks with one explicit slug: exactly one 201, every other 409 slug_taken', async () => {
      const a = await arena();
      for (let round = 0; round < 3; round += 1) {
        const slug = `same-playbook-${tag()}`;
        const replies = await Promise.all(Array.from({ length: 16 }, (_, i) =>
          post(a, i, '/playbooks', { title: `Claimant ${round} ${i}`, slug, version: { content: { instructions: 'x' } } })));
        onlyStatuses(replies, [201, 409], `round ${round}`);
        const won = replies.filter((r) => r.status === 201);
        expect(won, `round ${round}: one 201 (${statuses(replies)})`).to.have.length(1);
        expect(won[0].body.slug).to.equal(slug);
        for (const r of replies.filter((x) => x.status !== 201)) problem(r, 409, 'slug_taken');
      }
    });

    it('many creations of playbooks with one title and no slug: all 201, with the slugs base, base-2, … base-N', async () => {
      const a = await arena();
      const clients = 16;
      const title = `Launch Plan x${tag()}`;
      const replies = await Promise.all(Array.from({ length: clients }, (_, i) =>
        post(a, i, '/playbooks', { title, version: { content: { instructions: `x ${i}` } } })));
      onlyStatuses(replies, [201], 'creations');
      const base = replies[0].body.slug.replace(/-\d+$/, '');
      const expected = [base, ...Array.from({ length: clients - 1 }, (_, i) => `${base}-${i + 2}`)].sort();
      expect(replies.map((r) => r.body.slug).sort()).to.deep.equal(expected);
    });
  });

  describe('approvals', () => {
    it('approvals of different drafts of one playbook at once: every draft approved once, exactly one approved at the end', async () => {
      const a = await arena();
      const drafts = 12;
      const playbooks = await Promise.all([0, 1].map(() => createPlaybook(a.ws, a.ws.owner.key)));
      const versions = await Promise.all(playbooks.map(async (pb) => {
        const made: any[] = [];
        for (let i = 0; i < drafts; i += 1) made.push(await createVersion(a.ws, a.ws.owner.key, pb.id));
        return made;
      }));
      // Each draft is approved by two clients; the two playbooks' approvals interleave.
      const jobs = versions.flatMap((vs, p) => vs.flatMap((v) => [0, 1].map((k) => ({ p, v, k }))));
      jobs.sort((x, y) => (x.k - y.k) || (x.v.versionNumber - y.v.versionNumber) || (x.p - y.p));
      const replies = await Promise.all(jobs.map((job, i) =>
        request('PATCH', a.ws.path(`/playbooks/${playbooks[job.p].id}/versions/${job.v.id}/approve`), { token: a.token(i) })));
      onlyStatuses(replies, [200, 409], 'approvals');
      for (const r of replies.filter((x) => x.status === 409)) problem(r, 409, 'version_not_draft');

      for (const [p, pb] of playbooks.entries()) {
        // Approving a draft changes no other draft (only the approved version becomes deprecated), so each draft's
        // first approval finds it a draft (200) and its second finds it approved or deprecated (409).
        const per = versions[p].map((v) => jobs.map((job, i) => (job.p === p && job.v.id === v.id ? replies[i].status : 0)).filter(Boolean).sort());
        expect(per, `playbook ${p}: the answers to each draft's two approvals`).to.deep.equal(Array(drafts).fill([200, 409]));
        const detail = await getPlaybook(a.ws, a.ws.owner.key, pb.id);
        const byStatus = (s: string) => detail.versions.filter((v: any) => v.status === s).map((v: any) => v.id);
        expect(byStatus('approved'), `playbook ${p}: approved versions`).to.have.length(1);
        expect(versions[p].map((v) => v.id), `playbook ${p}: the approved version is one of the drafts approved`).to.include(byStatus('approved')[0]);
        expect(byStatus('deprecated'), `playbook ${p}: deprecated versions`).to.have.length(drafts - 1);
        expect(byStatus('draft'), `playbook ${p}: version 1, never approved, stays a draft`).to.deep.equal([pb.versions[0].id]);
        expect(detail.activeVersion.id).to.equal(byStatus('approved')[0]);
      }
    });
  });

  describe('bulk import', () => {
    it('imports and single creates of the same slugs at once: no 5xx, and each slug belongs to exactly one node', async () => {
      const a = await arena();
      const n = 10;
      for (let round = 0; round < 3; round += 1) {
        const t = tag();
        const slugs = Array.from({ length: n }, (_, i) => `shared${i}-${t}`);
        const imports = [0, 1].map((k) => () => post(a, k, '/context-nodes/import', {
          nodes: slugs.map((slug, i) => ({ slug, title: `Imported ${k} ${slug}`, description: 'd', content: `[[${slugs[(i + 1) % n]}]] [[elsewhere-${t}]]` })),
        }));
        const singles = slugs.flatMap((slug, i) => [0, 1].map((k) => () => post(a, i + k + 2, '/context-nodes', {
          title: `Single ${k} ${slug}`, description: 'd', slug, content: `[[${slugs[(i + 2) % n]}]]`,
        })));
        // The imports go in among the single creates.
        const jobs = [...singles.slice(0, n), imports[0], ...singles.slice(n), imports[1]];
        const replies = await Promise.all(jobs.map((job) => job()));
        onlyStatuses(replies, [200, 201, 409], `round ${round}`);
        const importReplies = [replies[n], replies[replies.length - 1]];
        const singleReplies = replies.filter((r) => !importReplies.includes(r));
        for (const r of importReplies) expect(r.status, r.text.slice(0, 300)).to.equal(200);
        for (const r of singleReplies.filter((x) => x.status === 409)) problem(r, 409, 'slug_taken');

        const wrong: string[] = [];
        for (const slug of slugs) {
          const items = importReplies.map((r) => r.body.nodes.find((item: any) => item.slug === slug));
          for (const item of items) {
            if (!['created', 'updated', 'unchanged'].includes(item.outcome)) wrong.push(`${slug}: import outcome ${item.outcome} ${JSON.stringify(item.error)}`);
          }
          const createdBySingle = singleReplies.filter((r) => r.status === 201 && r.body.slug === slug);
          const ids = new Set([...items.map((item) => item.id), ...createdBySingle.map((r) => r.body.id)]);
          const creations = createdBySingle.length + items.filter((item) => item.outcome === 'created').length;
          if (ids.size !== 1) wrong.push(`${slug}: the answers name ${ids.size} nodes (${[...ids]})`);
          if (creations !== 1) wrong.push(`${slug}: created ${creations} times (single creates ${createdBySingle.length}, imports ${items.map((item) => item.outcome)})`);
        }
        expect(wrong, `round ${round}`).to.deep.equal([]);
        const stored = (await allNodes(a.ws, 'all')).filter((node) => slugs.includes(node.slug));
        expect(stored.map((node) => node.slug).sort(), `round ${round}: the nodes stored with the slugs`).to.deep.equal([...slugs].sort());
        await expectLinksMatchContent(a.ws, `round ${round}`);
      }
    });
  });

  describe('webhook order', () => {
    it('node and link writes at once with a subscription to them: one delivery per event, numbered without repeats or gaps', async () => {
      // A receiver that takes whatever arrives, so deliveries made meanwhile succeed.
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.end());
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      try {
        const a = await arena();
        const edited = await createNode(a.ws);
        const targets = await Promise.all(Array.from({ length: 8 }, () => createNode(a.ws)));
        const sub = await request('POST', a.ws.path('/webhooks'), { token: a.ws.owner.key, body: { url, eventTypes: ['node.created', 'node.updated', 'link.created'] } });
        expect(sub.status, sub.text).to.equal(201);
        const replies = await Promise.all([
          ...Array.from({ length: 12 }, (_, i) => post(a, i, '/context-nodes', { title: `Hooked ${i} ${tag()}`, description: 'd' })),
          ...Array.from({ length: 8 }, (_, i) => patch(a, i, `/context-nodes/${edited.id}`, { content: `edit ${i}` })),
          ...targets.map((target, i) => post(a, i, `/context-nodes/${edited.id}/links`, { targetId: target.id, linkType: 'relates-to' })),
        ]);
        onlyStatuses(replies, [200, 201], 'writes');
        // A delivery is numbered when the dispatcher takes it up, moments after its write: wait until all are.
        let deliveries: { seq: number | null; eventId: string; eventType: string }[] = [];
        for (let tries = 0; tries < 100; tries++) {
          const log = await request('GET', a.ws.path(`/webhooks/${sub.body.id}/deliveries?limit=200`), { token: a.ws.owner.key });
          expect(log.status, log.text).to.equal(200);
          deliveries = log.body.deliveries;
          if (deliveries.length === replies.length && deliveries.every((d) => d.seq !== null)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(deliveries, 'one delivery per write').to.have.length(replies.length);
        expect(new Set(deliveries.map((d) => d.eventId)).size, 'each for its own event').to.equal(replies.length);
        const seqs = deliveries.map((d) => d.seq as number).sort((x, y) => x - y);
        expect(seqs, 'the subscription’s numbering').to.deep.equal(Array.from({ length: seqs.length }, (_, i) => seqs[0] + i));
        const deleted = await request('DELETE', a.ws.path(`/webhooks/${sub.body.id}`), { token: a.ws.owner.key });
        expect(deleted.status, deleted.text).to.equal(204);
      } finally {
        await new Promise<void>((r) => server.close(() => r()));
      }
    });
  });

  describe('archive and restore', () => {
    it('archive and restore of one node by many clients at once: no 5xx, a consistent state, one audit event per change', async () => {
      const a = await arena();
      const node = await createNode(a.ws, { title: 'Flip flop', slug: `flip-${tag()}` });
      const other = await createNode(a.ws);
      const manual = (await post(a, 0, `/context-nodes/${node.id}/links`, { targetId: other.id, linkType: 'requires' })).body;
      const mentioner = await createNode(a.ws, { content: `[[${node.slug}]]` });
      for (let round = 0; round < 3; round += 1) {
        const replies = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2
          ? request('DELETE', a.ws.path(`/context-nodes/${node.id}`), { token: a.token(i) })
          : post(a, i, `/context-nodes/${node.id}/restore`))));
        noServerErrors(replies, `round ${round}`);
        replies.forEach((r, i) => expect(r.status, `round ${round}: ${i % 2 ? 'archive' : 'restore'} ${r.text.slice(0, 300)}`).to.equal(i % 2 ? 204 : 200));

        const detail = await getNode(a.ws, node.id);
        expect(detail.status).to.be.oneOf(['live', 'archived']);
        expect(detail.archivedAt === null, `round ${round}: archivedAt is null exactly when the node is live`).to.equal(detail.status === 'live');
        const inList = async (status: string) => (await listNodes(a.ws, { status, limit: 200 })).nodes.some((m: any) => m.id === node.id);
        expect(await inList('live'), `round ${round}: listed as live`).to.equal(detail.status === 'live');
        expect(await inList('archived'), `round ${round}: listed as archived`).to.equal(detail.status === 'archived');
        // Archiving and restoring keep the node's links, both ways.
        expect(detail.outgoingLinks.map((l: any) => l.id)).to.deep.equal([manual.id]);
        expect(detail.incomingLinks.map((l: any) => l.sourceId)).to.deep.equal([mentioner.id]);

        // Only a request that changed the status records an event (docs/api.md, "Audit log"), so from a live
        // start the archived events outnumber the restored ones by one exactly when the node ends archived.
        const events = await request('GET', a.ws.path(`/audit-events?limit=200&target=${node.id}&action=node.*`), { token: a.ws.owner.key });
        expect(events.status, events.text).to.equal(200);
        const count = (action: string) => events.body.events.filter((e: any) => e.action === action).length;
        expect(count('node.archived') - count('node.restored'), `round ${round}: node.archived minus node.restored events (${count('node.archived')} - ${count('node.restored')})`)
          .to.equal(detail.status === 'archived' ? 1 : 0);
      }
    });
  });
});

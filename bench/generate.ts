/**
 * The benchmark's data: one workspace of N context nodes with typed links, a few readFirst nodes and playbooks with
 * an approved version each (the constants below), written through Cypher in batches (the service's own nodes/create,
 * the rest from bench/cypher), never through the API. The same seed gives the same graph.
 */
import { linkTypes, relationshipTypeOf, type LinkType } from '../src/nodes/link-types.js';
import { NodeSchema, nodeTypes } from '../src/nodes/schemas.js';
import type { GraphExecutor } from '../src/infra/neo4j.js';

type NodeType = (typeof nodeTypes)[number];
/** Share of each node type, of node-to-node links per type and of playbook links per type. */
const NODE_TYPE_WEIGHTS: Record<NodeType, number> = { brand: 10, process: 20, reference: 30, 'domain-knowledge': 20, example: 12, index: 8 };
const LINK_WEIGHTS: Record<LinkType, number> = { references: 40, 'relates-to': 30, 'index-entry': 15, requires: 10, supersedes: 5 };
const PLAYBOOK_LINK_WEIGHTS: Record<LinkType, number> = { references: 45, 'relates-to': 20, 'index-entry': 5, requires: 30, supersedes: 0 };
const IMPORTANCE_MAX = NodeSchema.properties.importance.maximum!;
const PLAYBOOKS = 20;
const READ_FIRST = 10;
/** A requires link points at most this many nodes on, and chains of them are at most this long: prerequisites stay in their topic. */
const REQUIRES_WINDOW = 20;
const MAX_REQUIRES_CHAIN = 3;
/** Most links stay near their node (a topic); the rest go anywhere. */
const LOCAL_WINDOW = 50;
const LOCAL_SHARE = 0.65;
const DAY = 86_400_000;
const BASE_TIME = Date.parse('2026-01-01T00:00:00.000Z');

export interface GeneratedWorkspace {
  workspaceId: string;
  ownerUserId: string;
  playbookIds: string[];
}

/** mulberry32: a small seeded PRNG of floats in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The randomness of one generation, derived from its seed and size. */
function randomness(seed: number, n: number) {
  const rng = prng(seed * 1_000_003 + n);
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)];
  const weighted = <K extends string>(weights: Record<K, number>): K => {
    const entries = Object.entries(weights) as [K, number][];
    let r = rng() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) if ((r -= w) < 0) return k;
    return entries[entries.length - 1][0];
  };
  /** The shape of src/infra/ids.ts newId, drawn from the seed. */
  const id = (prefix: string) => `${prefix}_${Array.from({ length: 20 }, () => '0123456789abcdefghijklmnopqrstuvwxyz'[int(0, 35)]).join('')}`;
  const words = (count: number) => Array.from({ length: count }, () => (rng() < 0.22 ? pick(CONNECTORS) : pick(WORDS))).join(' ');
  const sentence = (lo: number, hi: number) => capitalise(words(int(lo, hi))) + '.';
  const title = () => Array.from({ length: int(2, 5) }, () => capitalise(pick(WORDS))).join(' ');
  /** Plausible markdown of about `bytes` bytes: paragraphs, headings, lists, code or quotes; no wikilinks. */
  const markdown = (heading: string, nodeType: string, bytes: number) => {
    const parts = [`# ${heading}`];
    while (parts.join('\n\n').length < bytes) {
      const r = rng();
      if (r < 0.45) parts.push(Array.from({ length: int(2, 5) }, () => sentence(6, 16)).join(' '));
      else if (r < 0.65) parts.push(`## ${title()}`);
      else if (r < 0.9) parts.push(Array.from({ length: int(2, 5) }, (_, i) => `${nodeType === 'process' ? `${i + 1}.` : '-'} ${sentence(3, 10)}`).join('\n'));
      else parts.push(nodeType === 'process' ? '```bash\n' + pick(COMMANDS) + '\n```' : `> ${sentence(8, 18)}`);
    }
    return parts.join('\n\n') + '\n';
  };
  return { rng, int, pick, weighted, id, sentence, title, markdown };
}

const capitalise = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const WORDS = (
  'account agent alignment analysis approval archive asset audience audit backlog baseline brand budget campaign ' +
  'capacity catalogue channel checklist client cohort compliance component contract conversion customer dashboard ' +
  'deadline decision delivery dependency deployment design draft escalation estimate evidence experiment feedback ' +
  'forecast framework funnel glossary governance guideline handoff incident insight integration interview inventory ' +
  'invoice launch ledger lifecycle limit market message metric migration milestone model module narrative objective ' +
  'onboarding outcome owner partner payment persona pipeline platform policy portfolio pricing priority procedure ' +
  'process product proposal quality quarter queue quota readiness recipe reference region release renewal report ' +
  'requirement research retention review revenue risk roadmap rollout runbook schedule scope segment service signal ' +
  'snapshot source sprint stakeholder standard strategy supplier support survey system target task template tenant ' +
  'timeline tone training trend update usage validation value vendor version voice workflow workshop accurate annual ' +
  'approved clear concise critical current detailed documented effective essential external formal internal key legal ' +
  'manual monthly official optional preferred primary public regional required secure shared strategic technical ' +
  'weekly adjust align approve assess assign build capture check confirm define deliver document enable ensure ' +
  'evaluate explain identify inform maintain measure monitor notify plan prepare publish record reduce share track verify'
).split(' ');
const CONNECTORS = ['the', 'a', 'each', 'every', 'our', 'this', 'the team', 'with', 'for', 'before', 'after', 'when', 'and', 'of', 'to', 'in'];
const FUNCTION_AREAS = ['marketing', 'sales', 'support', 'engineering', 'operations', 'finance', 'legal', 'people'];
const COMMANDS = ['npm run deploy -- --env staging', 'make release VERSION=2.4.1', 'kubectl rollout status deploy/api', 'curl -sf https://status.example.com/health'];

/** Writes `rows` in batches of `size`, one statement (one transaction) per batch. */
async function inBatches<T>(graph: GraphExecutor, name: string, params: Record<string, unknown>, rows: T[], size: number, key = 'rows'): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await graph.write(name, { ...params, [key]: rows.slice(i, i + size) });
}

export async function generateWorkspace(graph: GraphExecutor, o: { nodes: number; seed: number; workspaceId: string }): Promise<GeneratedWorkspace> {
  const n = o.nodes;
  const r = randomness(o.seed, n);
  const workspaceId = o.workspaceId;
  const ownerUserId = r.id('usr');
  const start = BASE_TIME - 365 * DAY;
  const createdAt = new Date(start - 30 * DAY).toISOString();
  await graph.write('bench/create-workspace', { workspaceId, workspaceName: `Bench ${n} nodes`, plan: 'enterprise', userId: ownerUserId, email: `bench-owner+${workspaceId}@example.com`, userName: 'Bench Owner', createdAt });

  // readFirst, archived and edgeCaseOnly: disjoint, exact counts, from one shuffle.
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r.rng() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const nRead = Math.min(READ_FIRST, n);
  const nArchived = Math.round(n * 0.02);
  const flag = new Uint8Array(n); // 1 readFirst, 2 archived, 3 edgeCaseOnly
  order.slice(0, nRead + nArchived + Math.round(n * 0.03)).forEach((i, k) => (flag[i] = k < nRead ? 1 : k < nRead + nArchived ? 2 : 3));

  const ids = Array.from({ length: n }, () => r.id('cn'));
  const created = Array.from({ length: n }, (_, i) => Math.floor(start + (i / n) * 300 * DAY + r.rng() * DAY));
  const nodes = ids.map((id, i) => {
    const nodeType = r.weighted(NODE_TYPE_WEIGHTS);
    const title = r.title();
    const updatedAt = new Date(Math.min(BASE_TIME - DAY, created[i] + (r.rng() < 0.4 ? 0 : Math.floor(r.rng() * 60 * DAY)))).toISOString();
    return {
      id, slug: `node-${String(i).padStart(6, '0')}`, title, description: r.sentence(8, 16), content: r.markdown(title, nodeType, r.int(1024, 3700)),
      nodeType, agentSummary: r.sentence(12, 24), importance: flag[i] === 1 ? r.int(85, IMPORTANCE_MAX) : r.int(0, IMPORTANCE_MAX),
      readFirst: flag[i] === 1, edgeCaseOnly: flag[i] === 3, status: flag[i] === 2 ? 'archived' : 'live',
      createdAt: new Date(created[i]).toISOString(), updatedAt, archivedAt: flag[i] === 2 ? updatedAt : null,
    };
  });
  await inBatches(graph, 'nodes/create', { workspaceId }, nodes, 1000, 'nodes');

  // Links, from the last node to the first, so that a requires target (a later node) already knows its chain's depth.
  const links: { id: string; from: string; to: string; relType: string; createdAt: string }[] = [];
  const depth = new Uint8Array(n);
  for (let i = n - 1; i >= 0 && n > 1; i--) {
    const seen = new Set<string>();
    for (let s = r.int(3, 7); s > 0; s--) {
      let type = r.weighted(LINK_WEIGHTS);
      let j = -1;
      if (type === 'requires') {
        const c = i + r.int(1, REQUIRES_WINDOW);
        if (c < n && depth[c] < MAX_REQUIRES_CHAIN) depth[i] = Math.max(depth[i], depth[(j = c)] + 1);
        else type = 'references';
      } else if (type === 'supersedes' && i > 0) j = Math.max(0, i - r.int(1, 30));
      if (j < 0) j = r.rng() < LOCAL_SHARE ? Math.min(n - 1, Math.max(0, i + r.int(-LOCAL_WINDOW, LOCAL_WINDOW))) : Math.floor(r.rng() * n);
      if (j === i || seen.has(`${j}${type}`)) continue;
      seen.add(`${j}${type}`);
      links.push({ id: r.id('lnk'), from: ids[i], to: ids[j], relType: relationshipTypeOf[type], createdAt: new Date(Math.max(created[i], created[j]) + DAY).toISOString() });
    }
  }
  await inBatches(graph, 'bench/link-nodes', { workspaceId }, links, 2000);

  // Playbooks: each links 5 to 15 live nodes around a topic's centre.
  const playbooks = Array.from({ length: PLAYBOOKS }, (_, p) => {
    const id = r.id('pb');
    const approvedAt = new Date(Date.parse(createdAt) + r.int(1, 200) * DAY).toISOString();
    const steps = Array.from({ length: r.int(3, 7) }, () => r.sentence(5, 12));
    const version = { id: r.id('pbv'), content: JSON.stringify({ instructions: r.sentence(12, 24), steps }), changeNote: 'Initial version', createdAt, approvedAt };
    const centre = r.int(0, n - 1);
    const targets = new Set<number>();
    for (let tries = 0, want = Math.min(r.int(5, 15), n); targets.size < want && tries < 1000; tries++) {
      const c = tries < 500 ? centre + r.int(-100, 100) : r.int(0, n - 1);
      if (c >= 0 && c < n && flag[c] !== 2) targets.add(c);
    }
    const row = {
      id, slug: `playbook-${String(p + 1).padStart(2, '0')}`, title: r.title(), summary: r.sentence(6, 12), description: r.sentence(10, 20),
      functionArea: r.pick(FUNCTION_AREAS), visibility: 'workspace_private', ownerId: ownerUserId, tags: [r.pick(WORDS)], createdAt, updatedAt: approvedAt, version,
    };
    return { row, links: [...targets].map((t) => ({ id: r.id('lnk'), from: id, to: ids[t], relType: relationshipTypeOf[r.weighted(PLAYBOOK_LINK_WEIGHTS)], createdAt })) };
  });
  await graph.write('bench/create-playbooks', { workspaceId, rows: playbooks.map((p) => p.row) });
  await graph.write('bench/link-playbooks', { workspaceId, rows: playbooks.flatMap((p) => p.links) });
  console.log(`  ${n} nodes, ${links.length} links (${linkTypes.map((t) => `${t} ${links.filter((l) => l.relType === relationshipTypeOf[t]).length}`).join(', ')}), ${PLAYBOOKS} playbooks`);
  return { workspaceId, ownerUserId, playbookIds: playbooks.map((p) => p.row.id) };
}

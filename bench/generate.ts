/**
 * Benchmark data generator: one workspace of N context nodes, ~5 typed links per node, 10 readFirst nodes,
 * 20 playbooks with an approved version each, written straight through Cypher (UNWIND batches, one
 * transaction per batch), never through the API. Deterministic for a given seed.
 *
 *   npx tsx bench/generate.ts --nodes 10000 --uri bolt://127.0.0.1:7687 [--seed 1] [--database neo4j]
 *   npx tsx bench/generate.ts --nodes 1000,10000,100000      (one workspace per size)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import neo4j, { type Driver, routing } from 'neo4j-driver';
import { loadMigrations } from '../src/infra/migrations.js';

export const LINK_TYPES = ['references', 'relates-to', 'index-entry', 'requires', 'supersedes'] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export const NODE_TYPES = ['brand', 'process', 'reference', 'domain-knowledge', 'example', 'index'] as const;

/** Share of node-to-node links per type (issue 10). */
const LINK_WEIGHTS = [40, 30, 15, 10, 5];
/** Playbook links are mostly references, requires and relates-to. */
const PLAYBOOK_LINK_WEIGHTS = [45, 20, 5, 30, 0];
const NODE_TYPE_WEIGHTS = [10, 20, 30, 20, 12, 8];
const REQUIRES = LINK_TYPES.indexOf('requires');
const SUPERSEDES = LINK_TYPES.indexOf('supersedes');
/** A requires link points to a node at most this many places later: prerequisites stay in their topic. */
const REQUIRES_WINDOW = 20;
/** Longest requires chain, in links. */
const MAX_REQUIRES_CHAIN = 3;
const LOCAL_WINDOW = 50;
const LOCAL_SHARE = 0.65;
const DAY = 86_400_000;

export interface GenerateOptions {
  nodes: number;
  seed?: number;
  workspaceId?: string;
  /** Playbooks in the workspace (20). */
  playbooks?: number;
  /** readFirst nodes, whatever the workspace's size (10). */
  readFirst?: number;
  /** Rows per UNWIND for context nodes (1000: each carries 1-4 KB of content). */
  nodeBatchSize?: number;
  /** Node batches written at once (1). */
  nodeWriters?: number;
  /** Rows per UNWIND for links (2000). */
  linkBatchSize?: number;
  /** Every timestamp lies before this instant (fixed, so that a seed gives the same data). */
  baseTime?: string;
  log?: (line: string) => void;
}

export interface GeneratedWorkspace {
  workspaceId: string;
  ownerUserId: string;
  ownerEmail: string;
  playbookIds: string[];
  playbookVersionIds: string[];
  /** Context node ids each playbook links to, in playbookIds order. */
  playbookNodeIds: string[][];
  readFirstNodeIds: string[];
  /** Up to 200 live, non-readFirst node ids spread evenly over the workspace. */
  nodeIds: string[];
  /** Up to 20 archived node ids. */
  archivedNodeIds: string[];
  counts: {
    nodes: number;
    archived: number;
    edgeCaseOnly: number;
    readFirst: number;
    links: Record<LinkType, number>;
    playbookLinks: Record<LinkType, number>;
    contentBytes: number;
  };
  timingsMs: { plan: number; workspace: number; nodes: number; links: number; playbooks: number; total: number };
}

// ---------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over a string: turns (seed, label) into a PRNG seed. */
function hashSeed(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0001')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

type Rng = () => number;
const intIn = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];

function weighted(rng: Rng, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = rng() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Same shape as src/infra/ids.ts newId: prefix, '_', 20 base36 characters. */
function idFrom(rng: Rng, prefix: string): string {
  let out = '';
  for (let i = 0; i < 20; i++) out += ID_ALPHABET[Math.floor(rng() * 36)];
  return `${prefix}_${out}`;
}

// ---------------------------------------------------------------------------------------------------------
// Text

const WORDS = (
  'account agent alignment analysis approval archive asset audience audit backlog baseline benchmark brand ' +
  'budget campaign capacity catalogue channel checklist client cohort compliance component configuration ' +
  'contract conversion customer dashboard deadline decision delivery dependency deployment design draft ' +
  'editorial engagement escalation estimate evidence experiment feedback forecast framework funnel glossary ' +
  'governance guideline handoff hypothesis incident insight integration interview inventory invoice launch ' +
  'lead ledger lifecycle limit logo market message metric migration milestone mission model module monitor ' +
  'narrative negotiation objective onboarding operation outcome owner partner payment persona pipeline ' +
  'platform policy portfolio positioning pricing priority procedure process product proposal prospect ' +
  'quality quarter queue quota rationale readiness recipe reference region release renewal report request ' +
  'requirement research retention review revenue risk roadmap rollout routine runbook sample schedule scope ' +
  'segment service signal snapshot source specification sprint stakeholder standard strategy supplier ' +
  'support survey system target task template tenant terminology testing theme threshold timeline tone ' +
  'tooling training transition trend update usage validation value vendor version voice workflow workshop ' +
  'accurate active annual approved clear concise consistent critical current customer-facing detailed ' +
  'documented early effective essential external final formal global internal key legal local manual ' +
  'measurable monthly new official operational optional partial preferred primary public quarterly ' +
  'regional regulated required reusable secure shared simple standard strategic technical temporary ' +
  'trusted weekly adjust agree align approve assess assign build capture check collect confirm coordinate ' +
  'define deliver document draft enable ensure escalate estimate evaluate explain follow identify include ' +
  'inform maintain measure monitor notify plan prepare prioritise publish record reduce review schedule ' +
  'share summarise support track update validate verify'
).split(' ');
const CONNECTORS = ['the', 'a', 'each', 'every', 'our', 'this', 'the team', 'with', 'for', 'before', 'after', 'when', 'and', 'of', 'to', 'in'];
const FUNCTION_AREAS = ['marketing', 'sales', 'support', 'engineering', 'operations', 'finance', 'legal', 'people'];
const COMMANDS = ['npm run deploy -- --env staging', 'make release VERSION=2.4.1', 'kubectl rollout status deploy/api', 'psql -c "select count(*) from orders"', 'curl -sf https://status.example.com/health'];

const capitalise = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

function words(rng: Rng, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng() < 0.22 ? pick(rng, CONNECTORS) : pick(rng, WORDS));
  return out.join(' ');
}

function sentence(rng: Rng, min: number, max: number): string {
  return capitalise(words(rng, intIn(rng, min, max))) + '.';
}

function title(rng: Rng): string {
  const n = intIn(rng, 2, 5);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(capitalise(pick(rng, WORDS)));
  return out.join(' ');
}

/** Plausible markdown of about `target` bytes (ASCII, so characters are bytes); no [[wikilinks]]. */
function markdown(rng: Rng, heading: string, nodeType: string, target: number): string {
  const parts: string[] = [`# ${heading}`, ''];
  let length = heading.length + 3;
  while (length < target) {
    const r = rng();
    let block: string;
    if (r < 0.45) {
      const sentences: string[] = [];
      const n = intIn(rng, 2, 5);
      for (let i = 0; i < n; i++) sentences.push(sentence(rng, 6, 16));
      block = sentences.join(' ');
      if (rng() < 0.3) block = block.replace(/ (\w+) /, ' **$1** ');
    } else if (r < 0.65) {
      block = `## ${title(rng)}`;
    } else if (r < 0.9) {
      const n = intIn(rng, 2, 5);
      const items: string[] = [];
      const ordered = nodeType === 'process' || rng() < 0.2;
      for (let i = 0; i < n; i++) items.push(`${ordered ? `${i + 1}.` : '-'} ${sentence(rng, 3, 10)}`);
      block = items.join('\n');
    } else if (nodeType === 'process' || nodeType === 'example') {
      block = '```bash\n' + pick(rng, COMMANDS) + '\n```';
    } else {
      block = `> ${sentence(rng, 8, 18)}`;
    }
    parts.push(block, '');
    length += block.length + 2;
  }
  return parts.join('\n').trimEnd() + '\n';
}

// ---------------------------------------------------------------------------------------------------------
// Plan: everything but the text is decided up front, in compact arrays

interface Plan {
  n: number;
  workspaceId: string;
  ownerUserId: string;
  ownerEmail: string;
  createdAtIso: string;
  nodeIds: string[];
  nodeType: Uint8Array;
  importance: Uint8Array;
  readFirst: Uint8Array;
  edgeCaseOnly: Uint8Array;
  archived: Uint8Array;
  created: Float64Array;
  updated: Float64Array;
  linkFrom: Int32Array;
  linkTo: Int32Array;
  linkType: Uint8Array;
  linkCount: number;
  playbooks: Array<{ id: string; versionId: string; targets: number[]; types: number[] }>;
  idRng: Rng;
  seed: number;
}

function shuffled(rng: Rng, n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

function plan(opts: GenerateOptions): Plan {
  const n = Math.floor(opts.nodes);
  if (!(n >= 1)) throw new Error('nodes must be at least 1');
  const seed = opts.seed ?? 1;
  const base = Date.parse(opts.baseTime ?? '2026-01-01T00:00:00.000Z');
  const workspaceId = opts.workspaceId ?? idFrom(mulberry32(hashSeed('workspace', seed, n)), 'ws');
  const idRng = mulberry32(hashSeed('ids', seed, workspaceId));
  const rng = mulberry32(hashSeed('graph', seed, n));
  const ownerUserId = idFrom(idRng, 'usr');

  const nodeIds = new Array<string>(n);
  const nodeType = new Uint8Array(n);
  const importance = new Uint8Array(n);
  const created = new Float64Array(n);
  const updated = new Float64Array(n);
  const start = base - 365 * DAY;
  for (let i = 0; i < n; i++) {
    nodeIds[i] = idFrom(idRng, 'cn');
    nodeType[i] = weighted(rng, NODE_TYPE_WEIGHTS);
    importance[i] = intIn(rng, 0, 100);
    // Creation follows the index over ~300 days; edits up to 60 days later, never after base - 1 day.
    created[i] = Math.floor(start + (i / n) * 300 * DAY + rng() * DAY);
    updated[i] = Math.min(base - DAY, created[i] + (rng() < 0.4 ? 0 : Math.floor(rng() * 60 * DAY)));
  }

  // readFirst, archived and edgeCaseOnly are disjoint, exact counts, drawn from one shuffle.
  const readFirst = new Uint8Array(n);
  const archived = new Uint8Array(n);
  const edgeCaseOnly = new Uint8Array(n);
  const order = shuffled(rng, n);
  const nRead = Math.min(opts.readFirst ?? 10, n);
  const nArchived = Math.round(n * 0.02);
  const nEdge = Math.round(n * 0.03);
  let k = 0;
  for (let c = 0; c < nRead && k < n; c++, k++) {
    readFirst[order[k]] = 1;
    importance[order[k]] = intIn(rng, 85, 100);
  }
  for (let c = 0; c < nArchived && k < n; c++, k++) archived[order[k]] = 1;
  for (let c = 0; c < nEdge && k < n; c++, k++) edgeCaseOnly[order[k]] = 1;

  // Links: 3-7 per node (mean 5), type by weight. Generated from the last node to the first so that a
  // node's requires targets (later nodes within REQUIRES_WINDOW) already know their chain depth.
  const cap = n * 7;
  const linkFrom = new Int32Array(cap);
  const linkTo = new Int32Array(cap);
  const linkType = new Uint8Array(cap);
  const depth = new Uint8Array(n);
  let linkCount = 0;
  const seen = new Set<number>();
  const localOrGlobal = (i: number): number => {
    if (rng() < LOCAL_SHARE) {
      const j = i + intIn(rng, -LOCAL_WINDOW, LOCAL_WINDOW);
      if (j >= 0 && j < n) return j;
    }
    return Math.floor(rng() * n);
  };
  if (n > 1) {
    for (let i = n - 1; i >= 0; i--) {
      seen.clear();
      const degree = intIn(rng, 3, 7);
      for (let s = 0; s < degree; s++) {
        let type = weighted(rng, LINK_WEIGHTS);
        let j = -1;
        if (type === REQUIRES) {
          for (let attempt = 0; attempt < 8 && j < 0; attempt++) {
            const c = i + intIn(rng, 1, REQUIRES_WINDOW);
            if (c < n && depth[c] < MAX_REQUIRES_CHAIN && !seen.has(c * 8 + type)) j = c;
          }
          if (j < 0) type = LINK_TYPES.indexOf('references');
          else depth[i] = Math.max(depth[i], depth[j] + 1);
        } else if (type === SUPERSEDES && i > 0) {
          j = Math.max(0, i - intIn(rng, 1, 30));
        }
        for (let attempt = 0; j < 0 && attempt < 20; attempt++) {
          const c = localOrGlobal(i);
          if (c !== i && !seen.has(c * 8 + type)) j = c;
        }
        if (j < 0 || j === i || seen.has(j * 8 + type)) continue;
        seen.add(j * 8 + type);
        linkFrom[linkCount] = i;
        linkTo[linkCount] = j;
        linkType[linkCount] = type;
        linkCount++;
      }
    }
  }

  // Playbooks: each links 5-15 distinct live nodes around a random topic centre.
  const playbooks: Plan['playbooks'] = [];
  const nPlaybooks = opts.playbooks ?? 20;
  for (let p = 0; p < nPlaybooks; p++) {
    const id = idFrom(idRng, 'pb');
    const versionId = idFrom(idRng, 'pbv');
    const want = Math.min(intIn(rng, 5, 15), n);
    const centre = Math.floor(rng() * n);
    const chosen = new Set<number>();
    for (let attempt = 0; chosen.size < want && attempt < want * 50; attempt++) {
      const c = attempt < want * 10 ? centre + intIn(rng, -100, 100) : Math.floor(rng() * n);
      if (c >= 0 && c < n && !archived[c]) chosen.add(c);
    }
    const targets = [...chosen];
    playbooks.push({ id, versionId, targets, types: targets.map(() => weighted(rng, PLAYBOOK_LINK_WEIGHTS)) });
  }

  return {
    n,
    workspaceId,
    ownerUserId,
    ownerEmail: `bench-owner+${workspaceId}@example.com`,
    createdAtIso: new Date(start - 30 * DAY).toISOString(),
    nodeIds,
    nodeType,
    importance,
    readFirst,
    edgeCaseOnly,
    archived,
    created,
    updated,
    linkFrom,
    linkTo,
    linkType,
    linkCount,
    playbooks,
    idRng,
    seed,
  };
}

function nodeRow(pl: Plan, i: number) {
  const rng = mulberry32(hashSeed('text', pl.seed, i));
  const type = NODE_TYPES[pl.nodeType[i]];
  const heading = title(rng);
  const archivedAt = pl.archived[i] ? new Date(pl.updated[i]).toISOString() : null;
  return {
    id: pl.nodeIds[i],
    slug: `node-${String(i).padStart(6, '0')}`,
    title: heading,
    description: sentence(rng, 8, 16),
    content: markdown(rng, heading, type, intIn(rng, 1024, 3700)),
    nodeType: type,
    agentSummary: sentence(rng, 12, 24),
    importance: pl.importance[i],
    readFirst: pl.readFirst[i] === 1,
    edgeCaseOnly: pl.edgeCaseOnly[i] === 1,
    status: pl.archived[i] ? 'archived' : 'live',
    createdAt: new Date(pl.created[i]).toISOString(),
    updatedAt: new Date(pl.updated[i]).toISOString(),
    archivedAt,
  };
}

function linkCreatedAt(pl: Plan, from: number, to: number): string {
  const later = Math.max(pl.created[from], pl.created[to]);
  return new Date(later + ((from * 7919 + to * 104729) % (3 * DAY))).toISOString();
}

// ---------------------------------------------------------------------------------------------------------
// Writing

const queryDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cypher', 'queries', 'bench');
const queryCache = new Map<string, string>();
function query(name: string): string {
  let text = queryCache.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(queryDir, `${name}.cypher`), 'utf8');
    queryCache.set(name, text);
  }
  return text;
}

async function write(driver: Driver, database: string, name: string, params: Record<string, unknown>): Promise<void> {
  await driver.executeQuery(query(name), params, { database, routing: routing.WRITE });
}

/**
 * Writes batches one transaction each, building the next batch while up to `writers` batches are in flight.
 */
async function pipelined<T>(
  total: number,
  size: number,
  writers: number,
  build: (from: number, to: number) => T[],
  send: (rows: T[]) => Promise<void>,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  for (let from = 0; from < total; from += size) {
    const rows = build(from, Math.min(total, from + size));
    while (inFlight.size >= writers) await Promise.race(inFlight);
    const p: Promise<void> = send(rows).finally(() => inFlight.delete(p));
    p.catch(() => {}); // a failure surfaces through Promise.race / Promise.all below, never as unhandled
    inFlight.add(p);
  }
  await Promise.all(inFlight);
}

/** Applies cypher/migrations (idempotent: every statement says IF NOT EXISTS) and waits for the indexes. */
export async function applyMigrations(driver: Driver, database: string): Promise<void> {
  for (const migration of loadMigrations()) {
    for (const statement of migration.statements) await driver.executeQuery(statement, {}, { database });
  }
  await driver.executeQuery('CALL db.awaitIndexes(300)', {}, { database });
}

export async function generateWorkspace(driver: Driver, database: string, opts: GenerateOptions): Promise<GeneratedWorkspace> {
  const log = opts.log ?? (() => {});
  const t0 = performance.now();
  const pl = plan(opts);
  const tPlan = performance.now();
  const ws = pl.workspaceId;

  await write(driver, database, 'create-workspace', {
    workspaceId: ws,
    workspaceName: `Bench ${pl.n} nodes`,
    plan: 'enterprise',
    userId: pl.ownerUserId,
    email: pl.ownerEmail,
    userName: 'Bench Owner',
    createdAt: pl.createdAtIso,
  });
  const tWorkspace = performance.now();

  let contentBytes = 0;
  const nodeBatch = opts.nodeBatchSize ?? 1000;
  await pipelined(
    pl.n,
    nodeBatch,
    opts.nodeWriters ?? 1,
    (from, to) => {
      const rows = [];
      for (let i = from; i < to; i++) {
        const row = nodeRow(pl, i);
        contentBytes += row.content.length;
        rows.push(row);
      }
      return rows;
    },
    async (rows) => {
      await write(driver, database, 'create-nodes', { workspaceId: ws, rows });
    },
  );
  const tNodes = performance.now();
  log(`  ${pl.n} nodes in ${Math.round(tNodes - tWorkspace)} ms`);

  // Links, grouped by type: one statement per relationship type.
  const links = Object.fromEntries(LINK_TYPES.map((t) => [t, 0])) as Record<LinkType, number>;
  const byType: number[][] = LINK_TYPES.map(() => []);
  for (let k = 0; k < pl.linkCount; k++) byType[pl.linkType[k]].push(k);
  const linkBatch = opts.linkBatchSize ?? 2000;
  for (let t = 0; t < LINK_TYPES.length; t++) {
    const indices = byType[t];
    links[LINK_TYPES[t]] = indices.length;
    await pipelined(
      indices.length,
      linkBatch,
      1,
      (from, to) => {
        const rows = [];
        for (let x = from; x < to; x++) {
          const k = indices[x];
          rows.push({
            id: idFrom(pl.idRng, 'lnk'),
            from: pl.nodeIds[pl.linkFrom[k]],
            to: pl.nodeIds[pl.linkTo[k]],
            createdAt: linkCreatedAt(pl, pl.linkFrom[k], pl.linkTo[k]),
          });
        }
        return rows;
      },
      async (rows) => {
        await write(driver, database, `link-${LINK_TYPES[t]}`, { workspaceId: ws, rows });
      },
    );
  }
  const tLinks = performance.now();
  log(`  ${pl.linkCount} links in ${Math.round(tLinks - tNodes)} ms`);

  const pbRng = mulberry32(hashSeed('playbooks', pl.seed));
  const pbCreated = new Date(Date.parse(pl.createdAtIso) + DAY).toISOString();
  const playbookRows = pl.playbooks.map((p, index) => {
    const heading = title(pbRng);
    const steps = Array.from({ length: intIn(pbRng, 3, 7) }, () => sentence(pbRng, 5, 12));
    const updatedAt = new Date(Date.parse(pbCreated) + intIn(pbRng, 1, 200) * DAY).toISOString();
    return {
      id: p.id,
      slug: `playbook-${String(index + 1).padStart(2, '0')}`,
      title: heading,
      summary: sentence(pbRng, 6, 12),
      description: `${sentence(pbRng, 10, 20)}\n\n${sentence(pbRng, 10, 20)}`,
      functionArea: pick(pbRng, FUNCTION_AREAS),
      visibility: 'workspace_private',
      ownerId: pl.ownerUserId,
      tags: [...new Set(Array.from({ length: intIn(pbRng, 1, 3) }, () => pick(pbRng, WORDS)))],
      createdAt: pbCreated,
      updatedAt,
      version: {
        id: p.versionId,
        content: JSON.stringify({ instructions: sentence(pbRng, 12, 24), steps }),
        changeNote: 'Initial version',
        createdAt: pbCreated,
        approvedAt: updatedAt,
      },
    };
  });
  await write(driver, database, 'create-playbooks', { workspaceId: ws, rows: playbookRows });
  const playbookLinks = Object.fromEntries(LINK_TYPES.map((t) => [t, 0])) as Record<LinkType, number>;
  const playbookLinkRows = pl.playbooks.flatMap((p) =>
    p.targets.map((target, x) => {
      const type = LINK_TYPES[p.types[x]];
      playbookLinks[type] += 1;
      return { id: idFrom(pl.idRng, 'lnk'), from: p.id, to: pl.nodeIds[target], type, createdAt: pbCreated };
    }),
  );
  await write(driver, database, 'link-playbooks', { workspaceId: ws, rows: playbookLinkRows });
  const tPlaybooks = performance.now();

  const live: string[] = [];
  const archivedIds: string[] = [];
  const readFirstIds: string[] = [];
  const step = Math.max(1, Math.floor(pl.n / 200));
  for (let i = 0; i < pl.n; i++) {
    if (pl.readFirst[i]) readFirstIds.push(pl.nodeIds[i]);
    else if (pl.archived[i]) {
      if (archivedIds.length < 20) archivedIds.push(pl.nodeIds[i]);
    } else if (i % step === 0 && live.length < 200) live.push(pl.nodeIds[i]);
  }
  let edge = 0;
  let arch = 0;
  for (let i = 0; i < pl.n; i++) {
    edge += pl.edgeCaseOnly[i];
    arch += pl.archived[i];
  }

  return {
    workspaceId: ws,
    ownerUserId: pl.ownerUserId,
    ownerEmail: pl.ownerEmail,
    playbookIds: pl.playbooks.map((p) => p.id),
    playbookVersionIds: pl.playbooks.map((p) => p.versionId),
    playbookNodeIds: pl.playbooks.map((p) => p.targets.map((t) => pl.nodeIds[t])),
    readFirstNodeIds: readFirstIds,
    nodeIds: live,
    archivedNodeIds: archivedIds,
    counts: {
      nodes: pl.n,
      archived: arch,
      edgeCaseOnly: edge,
      readFirst: readFirstIds.length,
      links,
      playbookLinks,
      contentBytes,
    },
    timingsMs: {
      plan: Math.round(tPlan - t0),
      workspace: Math.round(tWorkspace - tPlan),
      nodes: Math.round(tNodes - tWorkspace),
      links: Math.round(tLinks - tNodes),
      playbooks: Math.round(tPlaybooks - tLinks),
      total: Math.round(tPlaybooks - t0),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// CLI

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'workspace-id': { type: 'string' },
      uri: { type: 'string', default: process.env.NEO4J_URI ?? 'bolt://127.0.0.1:7687' },
      user: { type: 'string', default: process.env.NEO4J_USERNAME ?? 'neo4j' },
      password: { type: 'string', default: process.env.NEO4J_PASSWORD ?? 'neo4j' },
      database: { type: 'string', default: process.env.NEO4J_DATABASE ?? 'neo4j' },
      'no-migrate': { type: 'boolean', default: false },
      'node-writers': { type: 'string', default: '1' },
      json: { type: 'string' },
    },
  });
  const sizes = (values.nodes ?? '').split(',').filter(Boolean).map(Number);
  if (sizes.length === 0 || sizes.some((s) => !Number.isInteger(s) || s < 1)) {
    console.error(
      'usage: tsx bench/generate.ts --nodes 10000[,100000] [--seed 1] [--workspace-id ws_…] [--uri bolt://…]\n' +
        '       [--user neo4j] [--password …] [--database neo4j] [--no-migrate] [--node-writers 1] [--json out.json]',
    );
    process.exit(2);
  }
  if (values['workspace-id'] && sizes.length > 1) throw new Error('--workspace-id needs a single --nodes size');
  const driver = neo4j.driver(values.uri!, neo4j.auth.basic(values.user!, values.password!), { disableLosslessIntegers: true });
  try {
    if (!values['no-migrate']) {
      const t = performance.now();
      await applyMigrations(driver, values.database!);
      console.log(`migrations applied in ${Math.round(performance.now() - t)} ms`);
    }
    const results: GeneratedWorkspace[] = [];
    for (const size of sizes) {
      console.log(`generating ${size} nodes (seed ${values.seed})`);
      const r = await generateWorkspace(driver, values.database!, {
        nodes: size,
        seed: Number(values.seed),
        workspaceId: values['workspace-id'],
        nodeWriters: Number(values['node-writers']),
        log: (line) => console.log(line),
      });
      results.push(r);
      const totalLinks = Object.values(r.counts.links).reduce((a, b) => a + b, 0);
      console.log(`  workspace ${r.workspaceId}, owner ${r.ownerUserId}`);
      console.log(`  links: ${LINK_TYPES.map((t) => `${t} ${r.counts.links[t]}`).join(', ')} (total ${totalLinks})`);
      console.log(`  playbook links: ${LINK_TYPES.map((t) => `${t} ${r.counts.playbookLinks[t]}`).join(', ')}`);
      console.log(
        `  archived ${r.counts.archived}, edgeCaseOnly ${r.counts.edgeCaseOnly}, readFirst ${r.counts.readFirst}, ` +
          `content ${(r.counts.contentBytes / 1e6).toFixed(1)} MB`,
      );
      const tm = r.timingsMs;
      console.log(
        `  timings ms: plan ${tm.plan}, workspace ${tm.workspace}, nodes ${tm.nodes}, links ${tm.links}, ` +
          `playbooks ${tm.playbooks}, total ${tm.total} (${(tm.total / 1000).toFixed(1)} s)`,
      );
    }
    if (values.json) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(values.json, JSON.stringify(results, null, 2));
    }
  } finally {
    await driver.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

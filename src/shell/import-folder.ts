import type { ImportContextNodesData, ImportContextNodesResponse, PlaybooksClient } from '@playbooks/client';
import cliProgress from 'cli-progress';
import type { ImportNodeInput } from '../nodes/schemas.js';
import { maxImportNodes } from '../nodes/schemas.js';
import { nameKey } from '../nodes/wikilinks.js';
import { serviceClient } from './connection.js';
import { type VaultFile, itemOf } from './import-item.js';
import type { ScannedFile } from './markdown-file.js';
import { nameIndex, scanVault } from './vault.js';

/**
 * `npm run cli -- import DIR --workspace ws_… [--dry-run] [--prune] [--strict]`: a markdown folder into a workspace,
 * through the service's bulk import (POST …/context-nodes/import) with a member's key, in batches bounded in count
 * and bytes. Typed links to files of a later batch are sent again once their targets exist (wikilinks resolve by
 * themselves); --prune archives the workspace's live nodes that no file has any more.
 */

export interface FolderImportOptions {
  dir: string;
  workspaceId: string;
  key: string;
  dryRun: boolean;
  prune: boolean;
  strict: boolean;
  /** Where the progress bar goes (stderr when it is a terminal); undefined for none. */
  progress?: NodeJS.WriteStream;
}

export interface FolderImportReport {
  dryRun: boolean;
  files: number;
  created: string[];
  updated: string[];
  unchanged: number;
  archived: string[];
  errors: { path: string; reason: string }[];
  /** Files whose path gives the slug of a file before them (or a front matter's slug): each got `-2`, `-3`, … */
  renamed: { path: string; slug: string; insteadOf: string; keptBy: string }[];
  /** Per file, what its wikilinks and typed links name that no node has, as written. */
  unresolved: { path: string; links: string[] }[];
  /** With --strict and bad files: nothing was written. */
  aborted: boolean;
}

/** Bytes of one request's JSON, kept below the service's 1 MiB body limit. */
const maxBatchBytes = 900 * 1024;

/**
 * Requests under way at once. With two, the service reads and checks one batch while Neo4j writes the one
 * before (each batch still waits for the workspace's lock in turn), and this process parses the files of the next.
 */
const requestsInFlight = 2;

type Answer = ImportContextNodesResponse;
type Readable = ScannedFile & { meta: Record<string, unknown> };
type Sent = { file: VaultFile & { item: ImportNodeInput }; bytes: number; result?: Answer['nodes'][number] };

export async function importFolder(o: FolderImportOptions): Promise<FolderImportReport> {
  const client = serviceClient(o.key, o.workspaceId);
  const stored = await storedNodes(client);
  const pinned = new Map(stored.filter((n) => n.sourcePath).map((n) => [n.sourcePath!, n.slug]));
  const pathless = new Set(stored.filter((n) => !n.sourcePath).map((n) => n.slug));
  const files = scanVault(o.dir, pinned, pathless);
  const report: FolderImportReport = { dryRun: o.dryRun, files: files.length, created: [], updated: [], unchanged: 0, archived: [], errors: [], renamed: [], unresolved: [], aborted: false };
  const readable: Readable[] = [];
  for (const f of files) {
    if (f.meta) readable.push(f);
    else report.errors.push({ path: f.path, reason: f.error });
    if (f.renamed) report.renamed.push({ path: f.path, slug: f.slug, ...f.renamed });
  }
  const namesNotFound = new Map(files.filter((f) => f.unresolvedNames).map((f) => [f.path, f.unresolvedNames!]));

  // Each file becomes its item as it is about to be sent (parsing bodies is most of this side's work), so that it
  // happens while the service writes the batches before.
  const sendable: Sent[] = [];
  function* items(onRefused?: () => void): Generator<Sent> {
    for (const f of sendOrder(readable)) {
      const v = itemOf(f);
      const bytes = v.item ? bytesOf(v.item) : 0;
      if (!v.item) report.errors.push({ path: v.path, reason: v.error });
      else if (bytes > maxBatchBytes) report.errors.push({ path: v.path, reason: `too large for one request (${bytes} bytes of JSON, at most ${maxBatchBytes})` });
      else {
        const s: Sent = { file: v as Sent['file'], bytes };
        sendable.push(s);
        yield s;
        continue;
      }
      onRefused?.();
    }
  }

  // The SDK retries a batch after a 429, a 503 or a lost connection: sending the same batch again changes nothing.
  const post = (body: NonNullable<ImportContextNodesData['body']>) => client.nodes.import(body);
  const send = async (batch: Sent[], dryRun: boolean, bar?: cliProgress.SingleBar) => {
    const answer = await post({ nodes: batch.map((s) => s.file.item), dryRun });
    answer.nodes.forEach((r, i) => {
      const first = batch[i].result;
      batch[i].result = first?.outcome === 'created' || (first?.outcome === 'updated' && r.outcome === 'unchanged') ? { ...r, outcome: first.outcome } : r;
    });
    bar?.increment(batch.length);
  };
  const sendAll = async (source: Iterable<Sent>, dryRun: boolean, bar?: cliProgress.SingleBar) => {
    const pending: Promise<void>[] = [];
    for (const batch of batches(source)) {
      const sending = send(batch, dryRun, bar);
      sending.catch(() => undefined); // awaited below, in order; a later batch's failure must not go unhandled meanwhile
      pending.push(sending);
      if (pending.length >= requestsInFlight) await pending.shift();
    }
    for (const sending of pending) await sending;
  };

  if (o.strict) {
    // --strict: every file is read before anything is sent, then a dry run of every batch; a file that this side
    // or the service refuses stops the import before a write.
    const all = [...items()];
    if (report.errors.length) return finish({ ...report, aborted: true });
    if (!o.dryRun) {
      await sendAll(all, true);
      const refused = all.filter((s) => s.result?.outcome === 'error');
      if (refused.length) {
        for (const s of refused) report.errors.push({ path: s.file.path, reason: `${s.result!.error!.code}: ${s.result!.error!.message}` });
        return finish({ ...report, aborted: true });
      }
      for (const s of all) s.result = undefined;
    }
  }

  const bar = o.progress ? new cliProgress.SingleBar({ stream: o.progress, format: 'import [{bar}] {value}/{total} files  {eta_formatted} left', etaBuffer: 50 }, cliProgress.Presets.shades_classic) : undefined;
  bar?.start(readable.length, 0);
  try {
    await sendAll(o.strict ? sendable : items(() => bar?.increment(1)), o.dryRun, bar);
  } finally {
    bar?.stop();
  }

  const imported = new Set(sendable.filter((s) => s.result && s.result.outcome !== 'error').map((s) => s.file.slug));
  // Typed links to a file of a later batch could not be stored the first time: send those files once more.
  if (!o.dryRun) {
    const again = sendable.filter((s) => s.result?.outcome !== 'error' && s.file.item.links?.some((l) => s.result!.unresolvedLinks.includes(l.target) && imported.has(l.target)));
    await sendAll(again, false);
  }

  // A wikilink to a file of a later batch was unresolved when its batch was written, and resolved when that file's was.
  const names = nameIndex(sendable.filter((s) => imported.has(s.file.slug)).map((s) => ({ ...s.file.item, slug: s.file.slug })));
  const resolved = (name: string) => imported.has(name) || names.has(nameKey(name));
  for (const s of sendable.sort((a, b) => byPath(a.file, b.file))) {
    const r = s.result!;
    if (r.outcome === 'error') report.errors.push({ path: s.file.path, reason: `${r.error!.code}: ${r.error!.message}` });
    else if (r.outcome === 'created') report.created.push(r.slug);
    else if (r.outcome === 'updated') report.updated.push(r.slug);
    else report.unchanged += 1;
    const links = [...r.unresolvedLinks.filter((name) => !resolved(name)), ...(namesNotFound.get(s.file.path) ?? [])];
    if (links.length) report.unresolved.push({ path: s.file.path, links });
  }

  if (o.prune) {
    // Slugs of files that are there but bad keep their nodes: only a node whose file is gone is archived.
    const present = new Set(files.map((f) => f.slug));
    const gone = stored.filter((n) => n.status === 'live' && !present.has(n.slug)).map((n) => n.slug);
    for (let i = 0; i < gone.length; i += maxImportNodes) {
      const answer = await post({ archive: gone.slice(i, i + maxImportNodes), dryRun: o.dryRun });
      for (const a of answer.archive) if (a.outcome === 'archived') report.archived.push(a.slug);
    }
  }
  return finish(report);
}

const bytesOf = (item: ImportNodeInput) => Buffer.byteLength(JSON.stringify(item));
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The report's lists in path order, whatever order the files were sent in; a refused file is listed as an error only. */
function finish(report: FolderImportReport): FolderImportReport {
  report.errors.sort(byPath);
  report.unresolved.sort(byPath);
  const refused = new Set(report.errors.map((e) => e.path));
  report.renamed = report.renamed.filter((r) => !refused.has(r.path)).sort(byPath);
  return report;
}

/**
 * The order in which files are sent: each after the files its typed links point to, where the links allow (a
 * cycle is broken where it closes), otherwise in path order. A typed link can be stored only once its target
 * exists, so every link that points forward costs its file a second send; wikilinks wait for their targets by
 * themselves. A depth-first walk, kept on a stack of its own: a chain of links may be as long as the vault.
 */
function sendOrder(files: Readable[]): Readable[] {
  const bySlug = new Map(files.map((f) => [f.slug, f]));
  const seen = new Set<Readable>();
  const order: Readable[] = [];
  for (const root of files) {
    if (seen.has(root)) continue;
    seen.add(root);
    const stack = [{ file: root, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const { links } = top.file;
      const slug = top.next < links.length ? links[top.next++].target : undefined;
      const target = typeof slug === 'string' ? bySlug.get(slug) : undefined;
      if (target && !seen.has(target)) {
        seen.add(target);
        stack.push({ file: target, next: 0 });
      } else if (top.next >= links.length) {
        stack.pop();
        order.push(top.file);
      }
    }
  }
  return order;
}

/** Consecutive batches of at most maxImportNodes items and maxBatchBytes of JSON, taken from `items` as they come. */
function* batches(items: Iterable<Sent>): Generator<Sent[]> {
  let batch: Sent[] = [];
  let bytes = 0;
  for (const s of items) {
    const size = s.bytes + 1;
    if (batch.length && (batch.length >= maxImportNodes || bytes + size > maxBatchBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(s);
    bytes += size;
  }
  if (batch.length) yield batch;
}

type StoredNode = { slug: string; status: string; sourcePath: string | null };

/** The workspace's nodes (any status) before the import: their slugs and the files they came from. */
async function storedNodes(client: PlaybooksClient): Promise<StoredNode[]> {
  const nodes: StoredNode[] = [];
  for await (const n of client.nodes.list({ status: 'all', limit: 200, sort: 'created_at', order: 'asc' })) {
    nodes.push({ slug: n.slug, status: n.status, sourcePath: n.sourcePath });
  }
  return nodes;
}

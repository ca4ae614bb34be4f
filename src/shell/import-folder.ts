import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import type { ImportNodeInput, ImportResult } from '../nodes/schemas.js';
import { maxImportNodes } from '../nodes/schemas.js';
import { ApiProblem, ServiceUnreachable, call } from './client.js';
import { type VaultFile, readVault } from './vault.js';

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
  unresolved: { path: string; slugs: string[] }[];
  /** With --strict and bad files: nothing was written. */
  aborted: boolean;
}

/** Bytes of one request's JSON, kept below the service's 1 MiB body limit. */
const maxBatchBytes = 900 * 1024;

type Answer = ImportResult;
type Sent = { file: VaultFile & { item: ImportNodeInput }; result?: Answer['nodes'][number] };

export async function importFolder(o: FolderImportOptions): Promise<FolderImportReport> {
  const files = readVault(o.dir);
  const report: FolderImportReport = { dryRun: o.dryRun, files: files.length, created: [], updated: [], unchanged: 0, archived: [], errors: [], unresolved: [], aborted: false };
  const good: Sent[] = [];
  for (const f of files) {
    if (f.item) good.push({ file: f as Sent['file'] });
    else report.errors.push({ path: f.path, reason: f.error! });
  }
  const oversize = good.filter((s) => bytesOf(s.file.item) > maxBatchBytes);
  for (const s of oversize) report.errors.push({ path: s.file.path, reason: `too large for one request (${bytesOf(s.file.item)} bytes of JSON, at most ${maxBatchBytes})` });
  const sendable = good.filter((s) => !oversize.includes(s));
  if (o.strict && report.errors.length) return { ...report, aborted: true };

  const base = `/api/v1/workspaces/${encodeURIComponent(o.workspaceId)}/context-nodes`;
  const post = (body: object) => withRetries(() => call('POST', `${base}/import`, o.key, { body })).then((a) => a.json as Answer);
  const send = async (batch: Sent[], dryRun: boolean, bar?: cliProgress.SingleBar) => {
    const answer = await post({ nodes: batch.map((s) => s.file.item), dryRun });
    answer.nodes.forEach((r, i) => {
      const first = batch[i].result;
      batch[i].result = first?.outcome === 'created' || (first?.outcome === 'updated' && r.outcome === 'unchanged') ? { ...r, outcome: first.outcome } : r;
    });
    bar?.increment(batch.length);
  };

  // --strict: a dry run of every batch first; any item the service refuses stops the import before a write.
  if (o.strict && !o.dryRun) {
    for (const batch of batches(sendable)) await send(batch, true);
    const refused = sendable.filter((s) => s.result?.outcome === 'error');
    if (refused.length) {
      for (const s of refused) report.errors.push({ path: s.file.path, reason: `${s.result!.error!.code}: ${s.result!.error!.message}` });
      return { ...report, aborted: true };
    }
    for (const s of sendable) s.result = undefined;
  }

  const bar = o.progress ? new cliProgress.SingleBar({ stream: o.progress, format: 'import [{bar}] {value}/{total} files  {eta_formatted} left', etaBuffer: 50 }, cliProgress.Presets.shades_classic) : undefined;
  bar?.start(sendable.length, 0);
  try {
    for (const batch of batches(sendable)) await send(batch, o.dryRun, bar);
  } finally {
    bar?.stop();
  }

  const imported = new Set(sendable.filter((s) => s.result && s.result.outcome !== 'error').map((s) => s.file.slug));
  // Typed links to a file of a later batch could not be stored the first time: send those files once more.
  if (!o.dryRun) {
    const again = sendable.filter((s) => s.result?.outcome !== 'error' && s.file.item.links?.some((l) => s.result!.unresolvedLinks.includes(l.target) && imported.has(l.target)));
    for (const batch of batches(again)) await send(batch, false);
  }

  for (const s of sendable) {
    const r = s.result!;
    if (r.outcome === 'error') report.errors.push({ path: s.file.path, reason: `${r.error!.code}: ${r.error!.message}` });
    else if (r.outcome === 'created') report.created.push(r.slug);
    else if (r.outcome === 'updated') report.updated.push(r.slug);
    else report.unchanged += 1;
    const slugs = r.unresolvedLinks.filter((slug) => !imported.has(slug));
    if (slugs.length) report.unresolved.push({ path: s.file.path, slugs });
  }

  if (o.prune) {
    // Slugs of files that are there but bad keep their nodes: only a node whose file is gone is archived.
    const present = new Set(files.map((f) => f.slug));
    const gone = (await liveSlugs(base, o.key)).filter((slug) => !present.has(slug));
    for (let i = 0; i < gone.length; i += maxImportNodes) {
      const answer = await post({ archive: gone.slice(i, i + maxImportNodes), dryRun: o.dryRun });
      for (const a of answer.archive) if (a.outcome === 'archived') report.archived.push(a.slug);
    }
  }
  return report;
}

const bytesOf = (item: ImportNodeInput) => Buffer.byteLength(JSON.stringify(item));

/** Consecutive batches of at most maxImportNodes items and maxBatchBytes of JSON. */
function* batches(items: Sent[]): Generator<Sent[]> {
  let batch: Sent[] = [];
  let bytes = 0;
  for (const s of items) {
    const size = bytesOf(s.file.item) + 1;
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

/** The slugs of the workspace's live nodes, page by page. */
async function liveSlugs(base: string, key: string): Promise<string[]> {
  const slugs: string[] = [];
  for (let page = 1; ; page += 1) {
    const { json } = await withRetries(() => call('GET', `${base}?status=live&limit=200&page=${page}&sort=created_at&order=asc`, key));
    slugs.push(...json.nodes.map((n: { slug: string }) => n.slug));
    if (page * 200 >= json.pagination.total) return slugs;
  }
}

/** A bulk import may be sent again (the same batch changes nothing twice): retried after a 503 or a lost connection. */
async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      const transient = err instanceof ServiceUnreachable || (err instanceof ApiProblem && (err.status === 503 || err.status === 429));
      if (!transient || attempt >= 4) throw err;
      await sleep(500 * 2 ** attempt);
    }
  }
}

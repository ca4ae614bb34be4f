import { createHash } from 'node:crypto';
import type { Caller } from '../auth/caller.js';
import { auditRecording } from '../config.js';
import { newId } from '../infra/ids.js';
import type { GraphExecutor, GraphTx, Params, Row } from '../infra/neo4j.js';

/**
 * Who made a change: a user, an agent (with the human who sponsors it), or the operator (ADMIN_TOKEN) or an
 * analyst (ANALYST_TOKEN) on the admin API.
 */
export type Actor =
  | { kind: 'user'; id: string }
  | { kind: 'agent'; id: string; sponsorUserId: string; client?: { id: string; name: string } }
  | { kind: 'operator' | 'analyst' };

/** What every audit event of one request shares: who, which request, when. Built by the service. */
export interface AuditStamp {
  actor: Actor;
  requestId: string;
  at: string;
}

/** One change, as the repository that makes it describes it. */
export interface AuditEntry {
  /** `playbook.version.approved`, `agent.key.revoked`, … (docs/api.md, "Audit events"). */
  action: string;
  /** The workspace the change belongs to; null only for the operator's changes to users and their keys. */
  workspaceId: string | null;
  targetIds: string[];
  /** The changed fields before and after (null on creation and removal respectively). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export function actorOf(caller: Pick<Caller, 'principal'>): Actor {
  const p = caller.principal;
  if (p.kind === 'user') return { kind: 'user', id: p.id };
  return { kind: 'agent', id: p.id, sponsorUserId: p.sponsorUserId, ...(p.client ? { client: p.client } : {}) };
}

/**
 * Who made a stored event's change, as the audit log and webhook payloads show it: the actor, and the hosted
 * client an agent acted through when there was one.
 */
export function storedActor(e: Row) {
  return {
    actor: { kind: e.actorKind, id: e.actorId ?? null, sponsorUserId: e.sponsorUserId ?? null },
    ...(e.clientId ? { client: { id: e.clientId, name: e.clientName } } : {}),
  };
}

/** The stamp of a workspace caller's request at `at`. */
export function stampOf(caller: Pick<Caller, 'principal' | 'requestId'>, at: string): AuditStamp {
  return { actor: actorOf(caller), requestId: caller.requestId, at };
}

/** Field names whose values are never recorded, at any depth: key material and other secrets. */
const secretField = /^(key|keys|prefix|hash|keyHash|keyHashes|secret|token|password|apiKey)$/i;

/** A copy without secrets and without undefined values (Neo4j keeps JSON text; it must round-trip). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([name, v]) => !secretField.test(name) && v !== undefined)
        .map(([name, v]) => [name, withoutSecrets(v)]),
    );
  }
  return value;
}

/** Only the named fields of `record` (the ones a change touched), for before/after. */
export function pick(record: Record<string, unknown> | null | undefined, fields: Iterable<string>): Record<string, unknown> | null {
  if (!record) return null;
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = record[f] ?? null;
  return out;
}

/**
 * A node's fields for before/after with its content as its size in UTF-8 bytes and its SHA-256 (hex), not its
 * text: the audit log says that and when content changed, and keeps no second copy of every version of it.
 */
export function contentDigested(fields: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!fields || typeof fields.content !== 'string') return fields;
  const { content, ...rest } = fields;
  return { ...rest, contentBytes: Buffer.byteLength(content), contentSha256: createHash('sha256').update(content).digest('hex') };
}

const json = (v: Record<string, unknown> | null | undefined) => (v == null ? null : JSON.stringify(withoutSecrets(v)));

/** Off only in a process started with AUDIT=off, the bench's measure of what recording costs (src/config.ts). */
const recording = auditRecording();

/**
 * Writes the audit event of one change in the transaction that makes the change (and its webhook outbox
 * records), so neither exists without the other; whatever composes the transaction calls it there
 * (docs/conventions.md). The statement is sent, not awaited: it rides with the transaction's next statement,
 * and the transaction commits only once it has succeeded.
 */
export async function recordAudit(tx: GraphTx, stamp: AuditStamp, entry: AuditEntry): Promise<string> {
  const { actor } = stamp;
  const event = {
    id: newId('aud'),
    workspaceId: entry.workspaceId,
    action: entry.action,
    actorKind: actor.kind,
    actorId: 'id' in actor ? actor.id : null,
    sponsorUserId: actor.kind === 'agent' ? actor.sponsorUserId : null,
    clientId: actor.kind === 'agent' ? (actor.client?.id ?? null) : null,
    clientName: actor.kind === 'agent' ? (actor.client?.name ?? null) : null,
    requestId: stamp.requestId,
    targetIds: entry.targetIds,
    before: json(entry.before),
    after: json(entry.after),
    at: stamp.at,
  };
  // When it was written, to the microsecond and never going back within a process: the dispatcher numbers a
  // subscription's deliveries in this order, so that of two events written one after the other in the same
  // millisecond (two cached retrievals crossing the quota's thresholds), the first is delivered first.
  const writtenAt = performance.timeOrigin + performance.now();
  if (recording) tx.send('audit/record', { event, workspaceId: entry.workspaceId, writtenAt });
  return event.id;
}

/**
 * One statement and the audit event of what it did, in one write transaction: `describe` gets the statement's
 * first row (undefined when it returned none) and returns the event, or undefined when nothing changed.
 */
export async function writeAudited<T extends Row = Row>(
  graph: GraphExecutor,
  name: string,
  params: Params,
  stamp: AuditStamp,
  describe: (row: T | undefined) => AuditEntry | undefined,
): Promise<T | undefined> {
  return graph.writeTx(async (tx) => {
    const [row] = await tx.run<T>(name, params);
    const entry = describe(row);
    if (entry) await recordAudit(tx, stamp, entry);
    return row;
  });
}

/** An event that records no change of its own (an analyst's query): written alone, in its own transaction. */
export async function recordAuditAlone(graph: GraphExecutor, stamp: AuditStamp, entry: AuditEntry): Promise<void> {
  await graph.writeTx((tx) => recordAudit(tx, stamp, entry));
}

import { createHash } from 'node:crypto';
import { type AuditEntry, recordAuditAlone } from '../audit/recorder.js';
import { AppError } from '../errors.js';
import type { ReportParamValue, ReportResult } from '../reports/schemas.js';
import { ReportService } from '../reports/service.js';
import type { ServiceDeps } from '../service-deps.js';
import { AnalystRepository, type RowSink, type TruncationReason } from './repository.js';
import { GraphSchemaRepository } from './schema-repository.js';
import type { GraphSchema, PlanOperator } from './schemas.js';

/** Analyst queries that may run at once in one API process, each in a process of its own (repository.ts). */
export const analystConcurrency = 4;

const MiB = 1024 * 1024;

export const cypherLimits = {
  defaultLimit: 1_000,
  maxLimit: 100_000,
  defaultTimeoutMs: 10_000,
  maxTimeoutMs: 60_000,
  /** One value of a row, as JSON; a row with a larger one ends the answer before it. */
  maxValueBytes: 1 * MiB,
  /** The rows of a JSON or CSV answer, which is held whole until it is sent. */
  maxBufferedAnswerBytes: 16 * MiB,
  /** The rows of an NDJSON answer, which leaves as it is made: bounded all the same, so one query cannot stream forever. */
  maxStreamedAnswerBytes: 256 * MiB,
} as const;

export interface CypherInput {
  query: string;
  params?: Record<string, unknown>;
  limit?: number;
  timeoutMs?: number;
}

export interface CypherOutcome {
  rows: number;
  /** Why the answer holds fewer rows than the query had; null when it holds them all. */
  truncatedBy: TruncationReason | null;
  limit: number;
  elapsedMs: number;
  /** For a statement begun with EXPLAIN or PROFILE. */
  plan?: PlanOperator[];
}

/** Who let the request in: the operator's token or the analysts'. */
export type AnalystCaller = 'admin' | 'analyst';

/** Read-only ad-hoc Cypher for the operator's analysts (POST /api/v1/admin/cypher). */
export class AnalystService {
  private readonly repo: AnalystRepository;
  /** The workspaces' saved reports, which an analyst runs for any workspace without being its member. */
  private readonly reports: ReportService;
  private readonly schema: GraphSchemaRepository;
  private running = 0;

  constructor(private readonly deps: Pick<ServiceDeps, 'graph' | 'logger' | 'clock' | 'config'>) {
    this.repo = new AnalystRepository(deps.graph, deps.config);
    this.reports = new ReportService(deps);
    this.schema = new GraphSchemaRepository(deps.graph);
  }

  /**
   * The database's labels, relationship types, property keys, indexes and constraints. Not in the audit log, like
   * the list of reports: names shared by every workspace, no workspace's data.
   */
  readSchema(): Promise<GraphSchema> {
    return this.schema.read();
  }

  /**
   * Runs a saved report in one workspace for the operator's analysts: the same report, parameters and answer as
   * the workspace's own route. Recorded in the audit log under that workspace, so its owner sees it too.
   */
  async runReport(workspaceId: string, name: string, given: Partial<Record<string, ReportParamValue>>, caller: AnalystCaller, requestId: string): Promise<ReportResult> {
    const started = performance.now();
    let rows = 0;
    let outcome = 'ok';
    try {
      const result = await this.reports.run(workspaceId, name, given);
      rows = result.rowCount;
      return result;
    } catch (err) {
      outcome = err instanceof AppError ? err.code : 'error';
      throw err;
    } finally {
      const ms = Math.round(performance.now() - started);
      await this.record(caller, requestId, { action: 'analyst.report.run', workspaceId, targetIds: [], after: { report: name, rows, outcome, ms } });
    }
  }

  /** An analyst's read in the audit log; never fails the read. */
  private async record(caller: AnalystCaller, requestId: string, entry: AuditEntry): Promise<void> {
    await recordAuditAlone(this.deps.graph, { actor: { kind: caller === 'admin' ? 'operator' : 'analyst' }, requestId, at: this.deps.clock().toISOString() }, entry)
      .catch((err) => this.deps.logger.warn({ err: (err as Error).message, action: entry.action }, 'analyst read not recorded in the audit log'));
  }

  /**
   * Runs one query, handing its rows to `sink`. Every query is logged with its caller, a hash of its text
   * (the text itself may hold data the log should not), the rows and the time, whatever its outcome.
   */
  async run(input: CypherInput, caller: AnalystCaller, sink: RowSink, requestId: string): Promise<CypherOutcome> {
    if (this.running >= analystConcurrency) {
      throw new AppError('rate_limited', `At most ${analystConcurrency} analyst queries run at once; try again shortly`, { headers: { 'Retry-After': '1' } });
    }
    // A statement ends at its last semicolon; the shell sends them that way. Its start is kept, so that Neo4j's
    // positions in an error are the analyst's.
    const text = input.query.trimEnd().replace(/;$/, '');
    if (!text.trim()) throw new AppError('invalid_request', 'The query is empty', { errors: [{ path: '/query', message: 'is empty', in: 'body' }] });
    const limit = input.limit ?? cypherLimits.defaultLimit;
    const timeoutMs = input.timeoutMs ?? cypherLimits.defaultTimeoutMs;
    const queryHash = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const started = performance.now();
    let rows = 0;
    let outcome = 'ok';
    this.running += 1;
    try {
      const counted: RowSink = {
        maxBytes: sink.maxBytes,
        columns: (keys) => sink.columns(keys),
        row: (values) => {
          rows += 1;
          return sink.row(values);
        },
      };
      const result = await this.repo.run(text, input.params ?? {}, { limit, maxValueBytes: cypherLimits.maxValueBytes, timeoutMs, metadata: { app: 'playbooks-analyst', caller, queryHash } }, counted);
      if (result.cut) outcome = result.cut === 'receiver' ? 'receiver_gone' : `truncated_${result.cut}`;
      const truncatedBy = result.cut === 'receiver' ? null : result.cut;
      return { rows: result.rows, truncatedBy, limit, elapsedMs: Math.round(performance.now() - started), ...(result.plan ? { plan: result.plan } : {}) };
    } catch (err) {
      outcome = err instanceof AppError ? err.code : 'error';
      throw err;
    } finally {
      this.running -= 1;
      const ms = Math.round(performance.now() - started);
      this.deps.logger.info({ analystQuery: { caller, queryHash, rows, outcome, ms, limit, timeoutMs } }, 'analyst query');
      // Recorded in the audit log too (the operator's GET /api/v1/admin/audit-events).
      await this.record(caller, requestId, { action: 'analyst.query.run', workspaceId: null, targetIds: [], after: { queryHash, rows, outcome, ms } });
    }
  }
}

import { notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { type Report, reportCatalog } from './catalog.js';
import { ReportRepository } from './repository.js';
import type { ReportParamValue, ReportResult } from './schemas.js';

/** The saved, workspace-scoped reports any member may run (cypher/reports, parsed once at start-up). */
export class ReportService {
  readonly reports: Report[];
  private readonly repo: ReportRepository;

  constructor(deps: Pick<ServiceDeps, 'graph'>, reports: Report[] = reportCatalog()) {
    this.reports = reports;
    this.repo = new ReportRepository(deps.graph);
  }

  /** Runs a report with its validated parameters; a parameter left out without a default is null. */
  async run(workspaceId: string, name: string, given: Partial<Record<string, ReportParamValue>>): Promise<ReportResult> {
    const report = this.reports.find((r) => r.name === name);
    if (!report) throw notFound('Report');
    const parameters = Object.fromEntries(report.parameters.map((p) => [p.name, given[p.name] ?? p.default ?? null]));
    const records = await this.repo.run(name, workspaceId, parameters);
    const rows = records.map((record) => report.columns.map((c) => record[c] ?? null));
    return { report: name, parameters, columns: report.columns, rows, rowCount: rows.length };
  }
}

import { Type } from '@sinclair/typebox';
import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { csvType, sendCsv, tabularFormat } from '../http/tabular.js';
import { reportCatalog, summaryOf } from './catalog.js';
import { type ReportParamValue, ReportResultSchema, ReportSummarySchema } from './schemas.js';
import type { ReportService } from './service.js';

const base = { tag: 'Reports', access: { kind: 'workspace', minRole: 'viewer' }, params: WorkspacePath } as const;

/**
 * The saved reports: the list, and one GET per report whose query parameters are the report's own (from its
 * header), so an unknown or invalid parameter is a 400 naming it and the OpenAPI document lists each one.
 */
export function reportRoutes(services: { reports: ReportService }): AnyOperation[] {
  // The catalog itself, not the service: the route table is built without running service code.
  const reports = reportCatalog();
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/reports', operationId: 'listReports',
      summary: 'List the saved reports',
      responses: { 200: { description: 'Every report, its parameters and columns', schema: Type.Object({ reports: Type.Array(ReportSummarySchema) }) } },
      handler: async ({ ctx, params }) => {
        ctx.body = { reports: reports.map((r) => summaryOf(r, `/api/v1/workspaces/${params.workspaceId}/reports/${r.name}`)) };
      },
    }),
    ...reports.map((report) =>
      defineOperation({
        ...base, method: 'get', path: `/api/v1/workspaces/:workspaceId/reports/${report.name}`,
        operationId: `runReport${report.name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}`,
        summary: `Report: ${report.title}`,
        description: `${report.description}\n\nColumns: ${report.columns.join(', ')}. Accept: text/csv gives CSV (lists as JSON).`,
        query: report.querySchema,
        responses: { 200: { description: 'The rows', schema: ReportResultSchema, otherTypes: { [csvType]: 'CSV with a header row' } } },
        handler: async ({ ctx, params, query }) => {
          const result = await services.reports.run(params.workspaceId, report.name, query as Partial<Record<string, ReportParamValue>>);
          if (tabularFormat(ctx, ['json', 'csv']) === 'csv') return sendCsv(ctx, result.columns, result.rows);
          ctx.body = result;
        },
      }),
    ),
  ];
}

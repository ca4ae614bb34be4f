import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../ui.tsx';
import { type ReportParams, type ReportSummary, listReports, reportCsv, runReport } from './CypherCalls.ts';
import { CypherResults } from './CypherResults.tsx';
import { rowsText } from './CypherValues.ts';

type Param = ReportSummary['parameters'][number];

const initialValue = (p: Param) => (p.default === undefined || p.default === null ? '' : String(p.default));

function ParamField({ report, param, value, onChange }: { report: string; param: Param; value: string; onChange: (v: string) => void }) {
  const id = `report-${report}-${param.name}`;
  const help = `${id}-help`;
  const common = { id, 'aria-describedby': help, required: param.required };
  let input;
  if (param.type === 'boolean') {
    input = <input {...common} type="checkbox" checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} required={false} />;
  } else if (param.values) {
    input = (
      <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
        {!param.required && <option value="">(none)</option>}
        {param.values.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    );
  } else {
    const type = param.type === 'integer' ? 'number' : param.type === 'date' ? 'date' : param.type === 'month' ? 'month' : 'text';
    input = <input {...common} type={type} min={param.minimum} max={param.maximum} step={param.type === 'integer' ? 1 : undefined} value={value} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className={param.type === 'boolean' ? 'inline' : 'stack'}>
      {param.type === 'boolean' ? input : null}
      <label htmlFor={id}>{param.name}</label>
      {param.type === 'boolean' ? null : input}
      <span id={help} className="muted small">
        {param.description}
        {param.minimum !== undefined ? ` (${param.minimum}–${param.maximum})` : ''}
        {param.required ? '' : param.default === undefined ? ' (optional)' : ''}
      </span>
    </div>
  );
}

/**
 * The workspaces' saved reports, run in any workspace with the analyst token (the SDK's analyst.reports):
 * the analyst gives the workspace id, picks a report and fills in its parameters.
 */
export function CypherReports() {
  const catalog = useQuery({ queryKey: ['analyst', 'reports'], queryFn: listReports, staleTime: Infinity });
  const [workspaceId, setWorkspaceId] = useState('');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const report = catalog.data?.find((r) => r.name === name) ?? catalog.data?.[0];
  const run = useMutation({ mutationFn: (v: { name: string; workspaceId: string; params: ReportParams }) => runReport(v.name, v.workspaceId, v.params).then((result) => ({ ...v, result })) });

  const valueOf = (p: Param) => values[`${report?.name}.${p.name}`] ?? initialValue(p);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!report) return;
    // A field left empty is left out: the report takes its default, or null when it is optional.
    const params: ReportParams = {};
    for (const p of report.parameters) {
      const v = valueOf(p);
      if (v === '') continue;
      params[p.name] = p.type === 'integer' ? Number(v) : p.type === 'boolean' ? v === 'true' : v;
    }
    run.mutate({ name: report.name, workspaceId: workspaceId.trim(), params });
  };

  return (
    <section className="cypher-reports" aria-labelledby="cypher-reports-title">
      <h2 id="cypher-reports-title">Saved reports</h2>
      <p className="muted small">The curated reports every workspace has, run here in the workspace you name.</p>
      {catalog.isPending && <Loading what="Loading the reports" />}
      <ErrorNote error={catalog.error} />
      {report && (
        <form onSubmit={submit} className="cypher-report-form">
          <div className="grid2">
            <div className="stack">
              <label htmlFor="report-workspace">Workspace id</label>
              <input id="report-workspace" value={workspaceId} onChange={(e) => setWorkspaceId(e.target.value)} required spellCheck={false} autoComplete="off" />
            </div>
            <div className="stack">
              <label htmlFor="report-name">Report</label>
              <select id="report-name" value={report.name} onChange={(e) => setName(e.target.value)} aria-describedby="report-description">
                {catalog.data!.map((r) => <option key={r.name} value={r.name}>{r.title}</option>)}
              </select>
            </div>
          </div>
          <p id="report-description" className="small">{report.description}</p>
          {report.parameters.length > 0 && (
            <fieldset className="cypher-params">
              <legend>Parameters</legend>
              <div className="grid2">
                {report.parameters.map((p) => (
                  <ParamField key={`${report.name}.${p.name}`} report={report.name} param={p} value={valueOf(p)} onChange={(v) => setValues((all) => ({ ...all, [`${report.name}.${p.name}`]: v }))} />
                ))}
              </div>
            </fieldset>
          )}
          <button type="submit" disabled={run.isPending}>{run.isPending ? 'Running…' : 'Run report'}</button>
        </form>
      )}
      <ErrorNote error={run.error} />
      {run.data && (
        <CypherResults
          id="report-result"
          title={`${catalog.data?.find((r) => r.name === run.data.name)?.title ?? run.data.name} in ${run.data.workspaceId}`}
          columns={run.data.result.columns}
          rows={run.data.result.rows}
          summary={rowsText(run.data.result.rowCount)}
          csv={() => reportCsv(run.data.name, run.data.workspaceId, run.data.params)}
          fileName={`${run.data.name}-${run.data.workspaceId}.csv`}
        />
      )}
    </section>
  );
}

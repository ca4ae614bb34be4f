/** The README's quickstart, compiled by `tsc -p sdk` so that it stays true to the types. Never run. */
import { type ListReportsResponse, PlaybooksClient, PlaybooksError } from '../src/index.js';

declare const process: { env: Record<string, string | undefined> };

export async function quickstart(): Promise<void> {
  const client = new PlaybooksClient({
    baseUrl: 'https://playbooks.example.com',
    apiKey: process.env.PLAYBOOKS_KEY!, // an agent key (pk_…) or a user key (pk_user_…)
    workspaceId: 'ws_…',
  });

  const bundle = await client.context.bundle({ playbookId: 'pb_…', mode: 'standard', maxNodes: 20 });
  console.log(bundle.playbook.activeVersion?.content, bundle.nodes.map((n) => n.title));

  const related = await client.context.follow(bundle.nodes[0].id, { linkType: ['requires', 'references'], depth: 2 });

  await client.feedback.create({ targetType: 'context_node', targetId: related.nodes[0].id, feedbackType: 'outdated', summary: 'Prices are from 2024' });

  for await (const playbook of client.playbooks.list({ sort: 'title' })) console.log(playbook.slug);

  try {
    await client.playbooks.get('pb_unknown');
  } catch (err) {
    if (err instanceof PlaybooksError) console.log(err.status, err.code, err.detail, err.errors);
  }
}

/** "Routes the methods do not wrap". */
export async function otherRoutes(client: PlaybooksClient, workspaceId: string): Promise<void> {
  const { data } = await client.request<ListReportsResponse>('GET', `/api/v1/workspaces/${workspaceId}/reports`);
  console.log(data.reports.map((r) => r.name));
  const csv = await client.request('GET', `/api/v1/workspaces/${workspaceId}/reports/hubs`, { query: { limit: 5 }, headers: { accept: 'text/csv' } });
  console.log(csv.data, csv.headers.get('x-row-count'));

  const answer = await client.raw('GET', `/api/v1/workspaces/${workspaceId}/export`, { stream: true });
  if (!answer.ok) throw await PlaybooksError.fromResponse(answer);
}

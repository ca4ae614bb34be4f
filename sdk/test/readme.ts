/** The README's quickstart, compiled by `tsc -p sdk` so that it stays true to the types. Never run. */
import { PlaybooksClient, PlaybooksError } from '../src/index.js';

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

/**
 * Compile-time checks of the client's types (`tsc -p sdk`, run by the root `npm test`): every line marked
 * `@ts-expect-error` must fail to compile, and every other line must compile. Never run.
 */
import { PlaybooksClient, PlaybooksError, type GetBundleResponse } from '../src/index.js';

declare const client: PlaybooksClient;

export async function requestBodies(): Promise<void> {
  await client.playbooks.create({ title: 'Launch', version: { content: { instructions: 'Do it' } } });
  // @ts-expect-error a misspelt field is not a field of the body
  await client.playbooks.create({ titel: 'Launch', version: { content: {} } });
  // @ts-expect-error title is a string
  await client.playbooks.create({ title: 42, version: { content: {} } });
  // @ts-expect-error version is required
  await client.playbooks.create({ title: 'Launch' });
  // @ts-expect-error visibility is one of two values
  await client.playbooks.create({ title: 'Launch', version: { content: {} }, visibility: 'public' });

  await client.nodes.create({ title: 'Tone', description: 'How we write', importance: 80, nodeType: 'brand' });
  // @ts-expect-error importance is a number
  await client.nodes.create({ title: 'Tone', description: 'How we write', importance: 'high' });
  // @ts-expect-error nodeType is one of the node types
  await client.nodes.create({ title: 'Tone', description: 'How we write', nodeType: 'poem' });

  await client.feedback.create({ targetType: 'context_node', targetId: 'cn_1', feedbackType: 'outdated', summary: 'Old prices' });
  // @ts-expect-error feedbackType is one of the feedback types
  await client.feedback.create({ targetType: 'context_node', targetId: 'cn_1', feedbackType: 'meh', summary: 'Old prices' });
  // @ts-expect-error summary is required
  await client.feedback.create({ targetType: 'context_node', targetId: 'cn_1', feedbackType: 'helpful' });

  await client.links.fromNode('cn_1', { targetId: 'cn_2', linkType: 'requires' });
  // @ts-expect-error linkType is one of the link types
  await client.links.fromNode('cn_1', { targetId: 'cn_2', linkType: 'needs' });

  // @ts-expect-error playbookId is required
  await client.context.bundle({ mode: 'summary' });
  // @ts-expect-error an unknown query parameter
  await client.context.bundle({ playbookId: 'pb_1', nodes: 5 });
  // @ts-expect-error maxNodes is a number
  await client.context.bundle({ playbookId: 'pb_1', maxNodes: '5' });
}

export async function responses(): Promise<void> {
  const bundle: GetBundleResponse = await client.context.bundle({ playbookId: 'pb_1', mode: 'summary', maxNodes: 5 });
  const first = bundle.nodes[0];
  const kind: 'read-first' | 'requires' | 'references' | 'relates-to' | 'index-entry' = first.reason.kind;
  const score: number = first.score;
  const truncated: boolean = bundle.truncated;
  // @ts-expect-error a bundle has no such field
  bundle.node;
  // @ts-expect-error score is a number, not a string
  const wrong: string = first.score;

  const playbook = await client.playbooks.create({ title: 'Launch', version: { content: {} } });
  const versionNumber: number = playbook.latestVersion.versionNumber;
  const status: 'draft' | 'approved' | 'deprecated' = playbook.versions[0].status;

  for await (const p of client.playbooks.list({ sort: 'title' })) {
    const slug: string = p.slug;
    // @ts-expect-error list items have no versions
    p.versions;
    void slug;
  }
  for await (const page of client.nodes.list().pages()) {
    const total: number = page.pagination.total;
    void total;
  }
  const archived: void = await client.nodes.archive('cn_1');
  const key = await client.keys.create('ag_1', { label: 'prod' });
  const secret: string = key.key;
  const usage = await client.usage.get();
  const remaining: number = usage.remaining;

  try {
    await client.playbooks.get('pb_missing');
  } catch (err) {
    if (err instanceof PlaybooksError) {
      const code: string = err.code;
      const fields: string[] = err.errors.map((e) => e.path);
      void code, fields;
    }
  }
  void kind, score, truncated, wrong, versionNumber, status, archived, secret, remaining;
}

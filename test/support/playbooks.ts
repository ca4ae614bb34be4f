import { type TestWorkspace, request, unique } from './api.js';

/** A playbook created through the API (201 asserted); returns its detail. */
export async function createPlaybook(workspace: TestWorkspace, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await request('POST', workspace.path('/playbooks'), {
    token,
    body: { title: unique('Playbook'), version: { content: { instructions: 'Do the thing' } }, ...fields },
  });
  if (res.status !== 201) throw new Error(`create playbook: expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

/** A new draft version (201 asserted); returns the version. */
export async function createVersion(workspace: TestWorkspace, token: string, playbookId: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await request('POST', workspace.path(`/playbooks/${playbookId}/versions`), {
    token,
    body: { content: { instructions: unique('step') }, ...body },
  });
  if (res.status !== 201) throw new Error(`create version: expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

export async function getPlaybook(workspace: TestWorkspace, token: string, playbookId: string): Promise<any> {
  const res = await request('GET', workspace.path(`/playbooks/${playbookId}`), { token });
  if (res.status !== 200) throw new Error(`get playbook: expected 200, got ${res.status} ${res.text}`);
  return res.body;
}

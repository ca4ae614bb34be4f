import { type TestUser, type TestWorkspace, request, unique } from './api.js';

export interface TestAgent {
  agentId: string;
  /** The full agent key (`pk_…`), usable as a bearer token. */
  key: string;
  keyId: string;
  /** The role granted (the requested one, capped by the sponsor's). */
  role: 'viewer' | 'editor' | 'owner';
  /** The user who registered it and sponsors it. */
  sponsor: TestUser;
}

/**
 * A new agent with one key, registered through the API by `sponsor` (the workspace owner by default).
 * The role defaults to viewer and is capped by the sponsor's role, as the API does.
 */
export async function createAgent(
  workspace: TestWorkspace,
  options: { role?: 'viewer' | 'editor' | 'owner'; sponsor?: TestUser; name?: string; label?: string } = {},
): Promise<TestAgent> {
  const sponsor = options.sponsor ?? workspace.owner;
  const created = await request('POST', workspace.path('/agents'), {
    token: sponsor.key,
    body: { name: options.name ?? unique('agent'), ...(options.role ? { role: options.role } : {}) },
  });
  if (created.status !== 201) throw new Error(`create agent: expected 201, got ${created.status} ${created.text}`);
  const agentId = created.body.id;
  const key = await createAgentKey(workspace, agentId, { token: sponsor.key, label: options.label });
  return { agentId, key: key.key, keyId: key.keyId, role: created.body.role, sponsor };
}

/** Another key for an existing agent, made by `token` (a user key of its sponsor or an owner). */
export async function createAgentKey(
  workspace: TestWorkspace,
  agentId: string,
  options: { token?: string; label?: string } = {},
): Promise<{ key: string; keyId: string }> {
  const res = await request('POST', workspace.path(`/agents/${agentId}/keys`), {
    token: options.token ?? workspace.owner.key,
    body: options.label === undefined ? {} : { label: options.label },
  });
  if (res.status !== 201) throw new Error(`create agent key: expected 201, got ${res.status} ${res.text}`);
  return { key: res.body.key, keyId: res.body.id };
}

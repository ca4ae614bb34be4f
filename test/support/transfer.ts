import { type Reply, type TestWorkspace, request } from './api.js';

/** The workspace's export (GET {ws}/export), by its owner unless `token` is given; the reply as it came. */
export const exportOf = (workspace: TestWorkspace, token = workspace.owner.key): Promise<Reply> => request('GET', workspace.path('/export'), { token });

/** An import of `body` into the workspace (POST {ws}/import), by its owner unless `token` is given; the reply as it came. */
export const importInto = (workspace: TestWorkspace, body: unknown, token = workspace.owner.key): Promise<Reply> =>
  request('POST', workspace.path('/import'), { token, body });

/** The workspace's export document (200 asserted). */
export async function exportedDoc(workspace: TestWorkspace): Promise<any> {
  const reply = await exportOf(workspace);
  if (reply.status !== 200) throw new Error(`export: expected 200, got ${reply.status} ${reply.text}`);
  return reply.body;
}

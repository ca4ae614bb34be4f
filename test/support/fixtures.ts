import { type TestWorkspace, createWorkspace } from './api.js';
import { createNode } from './nodes.js';
import { createPlaybook } from './playbooks.js';

/** A new workspace with one playbook (and its version 1) and one context node: targets to annotate or give feedback on. */
export async function workspaceWithTargets(): Promise<{ w: TestWorkspace; playbook: any; versionId: string; node: any }> {
  const w = await createWorkspace();
  const playbook = await createPlaybook(w, w.owner.key);
  const node = await createNode(w);
  return { w, playbook, versionId: playbook.versions[0].id as string, node };
}

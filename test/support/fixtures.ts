import { type TestUser, type TestWorkspace, addMember, createWorkspace } from './api.js';
import { createNode } from './nodes.js';
import { createPlaybook } from './playbooks.js';

/** A new workspace with one playbook (and its version 1) and one context node: targets to annotate or give feedback on. */
export async function workspaceWithTargets(): Promise<{ w: TestWorkspace; playbook: any; versionId: string; node: any }> {
  const w = await createWorkspace();
  const playbook = await createPlaybook(w, w.owner.key);
  const node = await createNode(w);
  return { w, playbook, versionId: playbook.versions[0].id as string, node };
}

/** A new workspace with an editor and a viewer beside its owner. */
export async function workspaceWithEditorAndViewer(): Promise<{ space: TestWorkspace; editor: TestUser; viewer: TestUser }> {
  const space = await createWorkspace();
  return { space, editor: await addMember(space, 'editor'), viewer: await addMember(space, 'viewer') };
}

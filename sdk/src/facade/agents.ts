import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import type { CallOptions } from '../transport.js';
import type { Body } from './types.js';

/** Agent management (user keys only). */
export const agentsPart = (ops: Operations) => ({
  register: (body: Body<T.RegisterAgentData>, call?: CallOptions) => ops.send(op.registerAgent, { path: ops.path(), body }, call),
  list: (call?: CallOptions) => ops.send(op.listAgents, { path: ops.path() }, call).then((r) => r.agents),
  get: (agentId: string, call?: CallOptions) => ops.send(op.getAgent, { path: ops.path({ agentId }) }, call),
  update: (agentId: string, body: Body<T.UpdateAgentData>, call?: CallOptions) => ops.send(op.updateAgent, { path: ops.path({ agentId }), body }, call),
  deactivate: (agentId: string, call?: CallOptions) => ops.send(op.deactivateAgent, { path: ops.path({ agentId }) }, call),
  reactivate: (agentId: string, call?: CallOptions) => ops.send(op.reactivateAgent, { path: ops.path({ agentId }) }, call),
});

/** An agent's keys (its sponsor or an owner, with a user key). */
export const keysPart = (ops: Operations) => ({
  /** The full key is in this answer only. */
  create: (agentId: string, body: Body<T.CreateAgentKeyData> = {}, call?: CallOptions) =>
    ops.send(op.createAgentKey, { path: ops.path({ agentId }), body }, call),
  list: (agentId: string, call?: CallOptions) => ops.send(op.listAgentKeys, { path: ops.path({ agentId }) }, call).then((r) => r.keys),
  revoke: (agentId: string, keyId: string, call?: CallOptions) => ops.send(op.revokeAgentKey, { path: ops.path({ agentId, keyId }) }, call),
  /**
   * A new key (in full in this answer only) while the old one works for `graceSeconds` more (default a day, at
   * most 7 days; 0 revokes it at once). A second call is 409 key_already_rotated.
   */
  rotate: (agentId: string, keyId: string, body: Body<T.RotateAgentKeyData> = {}, call?: CallOptions) =>
    ops.send(op.rotateAgentKey, { path: ops.path({ agentId, keyId }), body }, call),
});

/** The hosted (OAuth) clients a person let act as an agent, and ending their access. */
export const grantsPart = (ops: Operations) => ({
  list: (agentId: string, call?: CallOptions) => ops.send(op.listAgentGrants, { path: ops.path({ agentId }) }, call).then((r) => r.items),
  /** Its tokens are refused from the next request on. */
  revoke: (agentId: string, grantId: string, call?: CallOptions) => ops.send(op.revokeAgentGrant, { path: ops.path({ agentId, grantId }) }, call),
});

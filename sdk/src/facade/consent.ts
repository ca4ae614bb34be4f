import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import type { CallOptions } from '../transport.js';
import type { Body } from './types.js';

/** A hosted (OAuth) client's request to act as an agent, as the person signed in with a user key answers it: no workspace in its path. */
export const consentPart = (ops: Operations) => ({
  /** What the client asks, and the agents the person may let it act as. */
  get: (uid: string, call?: CallOptions) => ops.send(op.getConsentRequest, { path: { uid } }, call),
  /** Let it act as an agent (or a new one); the answer says where the browser goes next. */
  approve: (uid: string, body: Body<T.ApproveConsentRequestData>, call?: CallOptions) => ops.send(op.approveConsentRequest, { path: { uid }, body }, call),
  /** Refuse; the answer says where the browser goes next. */
  deny: (uid: string, call?: CallOptions) => ops.send(op.denyConsentRequest, { path: { uid } }, call),
});

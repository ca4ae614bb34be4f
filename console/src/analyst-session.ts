import type { PlaybooksClient } from '@sdk';
import { sdkClient } from './api.ts';
import { storedSecret, useSecretSession } from './session.ts';

/**
 * The operator's analyst (or admin) token of the Cypher page, kept like the user key and apart from it.
 */
export const analystSession = storedSecret(
  'playbooks-console.analyst-token',
  'The service did not accept this token. Sign in with the analyst token (ANALYST_TOKEN) or the admin token (ADMIN_TOKEN).',
);

export const useAnalystSession = () => useSecretSession(analystSession);

/** The SDK client of the analyst routes (no workspace) for the signed-in token. */
// A query may run up to a minute (its timeoutMs); the answer still has to come back after that.
export const analystClient = (): PlaybooksClient => sdkClient(analystSession, { timeoutMs: 90_000 });

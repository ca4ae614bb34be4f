import { PlaybooksClient, PlaybooksError } from '@sdk';
import { storedSecret, useSecretSession } from './session.ts';

/**
 * The operator's analyst (or admin) token of the Cypher page, kept like the user key and apart from it.
 */
export const analystSession = storedSecret(
  'playbooks-console.analyst-token',
  'The service did not accept this token. Sign in with the analyst token (ANALYST_TOKEN) or the admin token (ADMIN_TOKEN).',
);

export const useAnalystSession = () => useSecretSession(analystSession);

let client: PlaybooksClient | null = null;
// A client is made for one token: another sign-in (or a sign-out) makes the next one anew.
analystSession.subscribe(() => (client = null));

/** fetch that forgets the token when the service refuses it. */
const analystFetch: typeof fetch = async (input, init) => {
  const res = await globalThis.fetch(input, init);
  if (res.status === 401) analystSession.refused();
  return res;
};

/** The SDK client of the analyst routes (no workspace) for the signed-in token. */
export function analystClient(): PlaybooksClient {
  const token = analystSession.key;
  if (!token) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  // A query may run up to a minute (its timeoutMs); the answer still has to come back after that.
  client ??= new PlaybooksClient({ baseUrl: location.origin, apiKey: token, fetch: analystFetch, retry: false, timeoutMs: 90_000 });
  return client;
}

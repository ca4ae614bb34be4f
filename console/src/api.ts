import { PlaybooksClient, PlaybooksError } from '@sdk';
import { type SecretSession, session } from './session.ts';

export { PlaybooksError };

interface ClientOptions {
  /** The workspace the client's calls are about; none for the calls that name no workspace. */
  workspaceId?: string;
  /** The limit of each attempt. */
  timeoutMs?: number;
}

const made = new Map<SecretSession, Map<string, PlaybooksClient>>();

/** fetch that forgets the secret when the service refuses it (401), which sends the page back to its sign-in form. */
const refusing =
  (secret: SecretSession): typeof fetch =>
  async (input, init) => {
    const res = await globalThis.fetch(input, init);
    if (res.status === 401) secret.refused();
    return res;
  };

/**
 * The console's SDK client for the secret a person signed in with (the user key, the analyst token), one per
 * secret, workspace and limit: made anew after another sign-in. Not retried: a person sees the problem and may ask again.
 */
export function sdkClient(secret: SecretSession, { workspaceId, timeoutMs = 20_000 }: ClientOptions = {}): PlaybooksClient {
  const key = secret.key;
  if (!key) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  let clients = made.get(secret);
  if (!clients) {
    const fresh = new Map<string, PlaybooksClient>();
    // A client is made for one secret: another sign-in (or a sign-out) starts afresh.
    secret.subscribe(() => fresh.clear());
    made.set(secret, (clients = fresh));
  }
  const id = `${workspaceId ?? ''}\u0000${timeoutMs}`;
  let client = clients.get(id);
  if (!client) {
    if (clients.size > 20) clients.clear();
    client = new PlaybooksClient({ baseUrl: location.origin, apiKey: key, workspaceId, fetch: refusing(secret), retry: false, timeoutMs });
    clients.set(id, client);
  }
  return client;
}

/** The SDK client of one workspace for the signed-in user key. */
export const clientFor = (workspaceId: string): PlaybooksClient => sdkClient(session, { workspaceId });

/** A readable message for any error a call throws. */
export function messageOf(err: unknown): string {
  if (err instanceof PlaybooksError) {
    // A field's message the detail already says (Neo4j's message for /query, say) is not said twice.
    const fields = err.errors?.filter((e) => !err.detail.includes(e.message)).map((e) => `${e.path}: ${e.message}`).join('; ');
    return `${err.detail}${fields ? ` (${fields})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

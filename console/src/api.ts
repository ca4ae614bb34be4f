import { PlaybooksClient, PlaybooksError } from '@sdk';
import { session } from './session.ts';

export { PlaybooksError };

/** fetch that sends the page back to sign-in when the service refuses the key. */
export const consoleFetch: typeof fetch = async (input, init) => {
  const res = await globalThis.fetch(input, init);
  if (res.status === 401) session.refused();
  return res;
};

const clients = new Map<string, PlaybooksClient>();

/** The SDK client of one workspace for the signed-in key (one per key and workspace). */
export function clientFor(workspaceId: string): PlaybooksClient {
  const key = session.key;
  if (!key) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  const id = `${workspaceId}\u0000${key}`;
  let client = clients.get(id);
  if (!client) {
    if (clients.size > 20) clients.clear();
    client = new PlaybooksClient({ baseUrl: location.origin, apiKey: key, workspaceId, fetch: consoleFetch, retry: false, timeoutMs: 20_000 });
    clients.set(id, client);
  }
  return client;
}

session.subscribe(() => {
  if (!session.key) clients.clear();
});

/** A readable message for any error a call throws. */
export function messageOf(err: unknown): string {
  if (err instanceof PlaybooksError) {
    const fields = err.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
    return `${err.detail}${fields ? ` (${fields})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

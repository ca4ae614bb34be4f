import { PlaybooksClient, PlaybooksError } from '@sdk';
import { useSyncExternalStore } from 'react';

/**
 * The operator's analyst (or admin) token of the Cypher page, kept like the user key (src/session.ts) and apart
 * from it: in memory and in this tab's sessionStorage only, never in a URL, a cookie or a log. Signing out, or
 * the service refusing the token (401), forgets it.
 */
const storageKey = 'playbooks-console.analyst-token';

interface AnalystSessionState {
  token: string | null;
  /** Why the analyst is back at the sign-in form, when it was not their choice. */
  notice: string | null;
}

function readStored(): string | null {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

let state: AnalystSessionState = { token: readStored(), notice: null };
const listeners = new Set<() => void>();
let client: PlaybooksClient | null = null;

function set(next: AnalystSessionState): void {
  state = next;
  client = null;
  try {
    if (next.token) sessionStorage.setItem(storageKey, next.token);
    else sessionStorage.removeItem(storageKey);
  } catch {
    // Storage refused (private mode): the token stays in memory only.
  }
  for (const listener of listeners) listener();
}

export const analystSession = {
  get token(): string | null {
    return state.token;
  },
  signIn(token: string): void {
    set({ token: token.trim(), notice: null });
  },
  signOut(notice: string | null = null): void {
    set({ token: null, notice });
  },
  /** The service answered 401: the token is not (or no longer) the deployment's. */
  refused(): void {
    if (state.token) set({ token: null, notice: 'The service did not accept this token. Sign in with the analyst token (ANALYST_TOKEN) or the admin token (ADMIN_TOKEN).' });
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  snapshot: (): AnalystSessionState => state,
};

export function useAnalystSession(): AnalystSessionState {
  return useSyncExternalStore(analystSession.subscribe, analystSession.snapshot);
}

/** fetch that forgets the token when the service refuses it. */
const analystFetch: typeof fetch = async (input, init) => {
  const res = await globalThis.fetch(input, init);
  if (res.status === 401) analystSession.refused();
  return res;
};

/** The SDK client of the analyst routes (no workspace) for the signed-in token. */
export function analystClient(): PlaybooksClient {
  const token = state.token;
  if (!token) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  // A query may run up to a minute (its timeoutMs); the answer still has to come back after that.
  client ??= new PlaybooksClient({ baseUrl: location.origin, apiKey: token, fetch: analystFetch, retry: false, timeoutMs: 90_000 });
  return client;
}

import { useSyncExternalStore } from 'react';

/**
 * The signed-in user key: kept in memory and in sessionStorage (this tab only, gone when it closes), never in
 * a URL, a cookie or a log. Signing out, or the service refusing the key (401), forgets it.
 */
const storageKey = 'playbooks-console.key';

interface SessionState {
  key: string | null;
  /** Why the user is back on the sign-in page, when it was not their choice. */
  notice: string | null;
}

function readStored(): string | null {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

let state: SessionState = { key: readStored(), notice: null };
const listeners = new Set<() => void>();

function set(next: SessionState): void {
  state = next;
  try {
    if (next.key) sessionStorage.setItem(storageKey, next.key);
    else sessionStorage.removeItem(storageKey);
  } catch {
    // Storage refused (private mode): the key stays in memory only.
  }
  for (const listener of listeners) listener();
}

export const session = {
  get key(): string | null {
    return state.key;
  },
  signIn(key: string): void {
    set({ key: key.trim(), notice: null });
  },
  signOut(notice: string | null = null): void {
    set({ key: null, notice });
  },
  /** The service answered 401: the key was revoked or expired. */
  refused(): void {
    if (state.key) set({ key: null, notice: 'The service no longer accepts this key (revoked or expired). Sign in with a valid user key.' });
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  snapshot: (): SessionState => state,
};

export function useSession(): SessionState {
  return useSyncExternalStore(session.subscribe, session.snapshot);
}

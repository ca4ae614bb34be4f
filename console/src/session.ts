import { useSyncExternalStore } from 'react';

/**
 * A secret a person signs in with (a user key, an analyst token): kept in memory and in sessionStorage (this tab
 * only, gone when it closes), never in a URL, a cookie or a log. Signing out, or the service refusing it (401),
 * forgets it.
 */
interface SessionState {
  key: string | null;
  /** Why the person is back on the sign-in form, when it was not their choice. */
  notice: string | null;
}

export type SecretSession = ReturnType<typeof storedSecret>;

/** One such secret under `storageKey`; `refusedNotice` is what the sign-in form says after a 401. */
export function storedSecret(storageKey: string, refusedNotice: string) {
  const readStored = (): string | null => {
    try {
      return sessionStorage.getItem(storageKey);
    } catch {
      return null;
    }
  };
  let state: SessionState = { key: readStored(), notice: null };
  const listeners = new Set<() => void>();
  const set = (next: SessionState): void => {
    state = next;
    try {
      if (next.key) sessionStorage.setItem(storageKey, next.key);
      else sessionStorage.removeItem(storageKey);
    } catch {
      // Storage refused (private mode): the secret stays in memory only.
    }
    for (const listener of listeners) listener();
  };
  const store = {
    get key(): string | null {
      return state.key;
    },
    signIn(key: string): void {
      set({ key: key.trim(), notice: null });
    },
    signOut(notice: string | null = null): void {
      set({ key: null, notice });
    },
    /** The service answered 401: the secret was revoked, expired or never valid. */
    refused(): void {
      if (state.key) set({ key: null, notice: refusedNotice });
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshot: (): SessionState => state,
  };
  return store;
}

export function useSecretSession(store: SecretSession): SessionState {
  return useSyncExternalStore(store.subscribe, store.snapshot);
}

/** The signed-in user key. */
export const session = storedSecret('playbooks-console.key', 'The service no longer accepts this key (revoked or expired). Sign in with a valid user key.');

export const useSession = (): SessionState => useSecretSession(session);

import { useState, type FormEvent } from 'react';
import { session, useSession } from '../session.ts';
import { PageTitle } from '../ui.tsx';

/**
 * Paste a user key; it stays in this tab (memory and sessionStorage) and is sent only to this service. A page that
 * asks for sign-in on its own URL (the consent page) says why in `intro`.
 */
export function SignIn({ intro }: { intro?: string }) {
  const { notice } = useSession();
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = key.trim();
    if (!/^pk_\S+$/.test(trimmed)) {
      setProblem('A key starts with pk_ (a user key: pk_user_…).');
      return;
    }
    setKey('');
    session.signIn(trimmed);
  };
  return (
    <section className="signin">
      <PageTitle text="Sign in" />
      {intro && <p>{intro}</p>}
      {notice && (
        <p role="alert" className="notice" id="signin-notice">
          {notice}
        </p>
      )}
      <form onSubmit={submit} autoComplete="off">
        <label htmlFor="user-key">User key</label>
        <input
          id="user-key"
          name="user-key"
          type="password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-describedby="user-key-help"
          aria-invalid={problem ? true : undefined}
          spellCheck={false}
          required
        />
        <p id="user-key-help" className="muted">
          Paste your user key (pk_user_…). It is kept in this browser tab only and forgotten when you sign out or close the tab.
        </p>
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

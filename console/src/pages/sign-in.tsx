import { useState } from 'preact/hooks';
import { api } from '../api';
import { session } from '../session';
import { ErrorBox, useAction } from '../ui';

/** A workspace token is checked against the API before it is kept; a refusal shows the API's words. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const { error, busy, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await run(() => api.call('GET /v2/sources', { token: token.trim() }));
    if (ok === undefined) return;
    session.signIn(token.trim());
    onSignedIn();
  };
  return (
    <main class="sign-in">
      <h1>Weir Console</h1>
      <form onSubmit={submit}>
        <label for="token">Workspace token</label>
        <input id="token" type="password" autoComplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <ErrorBox error={error} />
      </form>
      <p class="hint">
        <code>npm start</code> prints a token; <code>npm run admin -- token create</code> makes more.
      </p>
    </main>
  );
}

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** What went wrong, as the API worded it. */
export const errorText = (error: unknown): string => (error instanceof ApiError || error instanceof Error ? error.message : String(error));

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

/** Loads on mount (and on `deps` change); `reload` again on demand; `every` ms keeps it fresh while shown. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], every?: number) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    try {
      setData(await latest.current());
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void reload();
    if (!every) return;
    const timer = setInterval(() => void reload(), every);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, reload };
}

/** Runs an action from a form or button, keeping its error (or clearing it) for display. */
export function useAction() {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run };
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      aria-label={label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

// Focusable: a scrolling box must be reachable from the keyboard.
export const Json = ({ value }: { value: unknown }) => (
  <pre class="json" tabIndex={0}>
    {JSON.stringify(value, null, 2)}
  </pre>
);

/** A time the API gave as an ISO string, in the reader's locale; nothing for anything else (a live event's fields are its own). */
export const when = (iso: unknown) => (typeof iso === 'string' && iso ? new Date(iso).toLocaleString() : '');

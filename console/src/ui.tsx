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

/** One stage of a test run (input, transformed, destination payload, answer): its name, then its JSON formatted, folded on a click. */
export const Stage = ({ title, value, open = true }: { title: string; value: unknown; open?: boolean }) => (
  <details class="stage" open={open}>
    <summary>{title}</summary>
    <Json value={value} />
  </details>
);

/** A time the API gave as an ISO string, in the reader's locale; nothing for anything else (a live event's fields are its own). */
export const when = (iso: unknown) => (typeof iso === 'string' && iso ? new Date(iso).toLocaleString() : '');

/** A time zone label for the times the console shows: the reader's own zone and its offset now. */
export function timeZoneLabel(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = -new Date().getTimezoneOffset();
  const hours = `${offset >= 0 ? '+' : '-'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  return `${zone} (UTC${hours})`;
}

/** A duration in milliseconds as people read it: ms below a second, seconds (one decimal) below a minute, then minutes. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A share as a percentage with one decimal (– when there is nothing to share). */
export const percent = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '–');

/** A wide table in a box of its own that scrolls sideways, so the page never does; focusable, as a scrolling region must be. */
export const Scroll = ({ label, children }: { label: string; children: ComponentChildren }) => (
  <div class="scroll" role="region" aria-label={label} tabIndex={0}>
    {children}
  </div>
);

/** A question before a risky action: what it will do, with its counts; the action runs only on the confirm button. */
export interface Confirmation {
  question: string;
  confirm: string;
  action: () => Promise<unknown>;
}

/**
 * Confirmations for a page: `ask` opens a modal dialog with the question; `dialog` is what to render (nothing
 * until asked). The question may be worked out first (a count read from the API): `ask` takes it as a promise.
 */
export function useConfirm() {
  const [pending, setPending] = useState<Confirmation | undefined>(undefined);
  const ask = useCallback(async (confirmation: Confirmation | Promise<Confirmation>) => setPending(await confirmation), []);
  const dialog = pending && <ConfirmDialog {...pending} onClose={() => setPending(undefined)} />;
  return { ask, dialog };
}

function ConfirmDialog({ question, confirm, action, onClose }: Confirmation & { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-question" onClose={onClose}>
      <p id="confirm-question">{question}</p>
      <div class="row">
        <button
          type="button"
          onClick={() => {
            ref.current?.close();
            void action();
          }}
        >
          {confirm}
        </button>
        <button type="button" class="secondary" onClick={() => ref.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

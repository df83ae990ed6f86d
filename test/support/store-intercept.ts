import { getTableClient, type TableClient } from '../../shared/persistence/table-client';

/** The store's answer to one request, as a middleware of the table client gets it. */
export type StoreAnswer = { output: Record<string, unknown> };

/** Sends a request on to the store (as it was, or changed) and gives back the store's answer. */
export type SendOn = (input: Record<string, unknown>) => Promise<StoreAnswer>;

/**
 * Shown each request first: it may count it, throw as the store would, or answer it instead of the store by
 * returning the answer (made with `send`, which passes a request on, changed or not); returning nothing passes
 * the request on as it is.
 */
type Intercept = (command: string | undefined, input: Record<string, unknown>, send: SendOn) => void | Promise<StoreAnswer>;

let added = 0;

/**
 * Runs `body` with each request of `store` (by default the process's table client, the one the handlers use)
 * shown first to `intercept`; taken off again however `body` ends.
 */
export async function intercepting<T>(intercept: Intercept, body: () => Promise<T>, store: TableClient = getTableClient()): Promise<T> {
  const { doc } = store;
  const name = `intercept-${++added}`;
  const middleware = (next: (args: unknown) => Promise<StoreAnswer>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) =>
    (await intercept(context.commandName, args.input, (input) => next({ ...args, input }))) ?? next(args);
  doc.middlewareStack.add(middleware as never, { step: 'initialize', name });
  try {
    return await body();
  } finally {
    doc.middlewareStack.remove(name);
  }
}

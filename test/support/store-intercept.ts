import { getTableClient } from '../../shared/persistence/table-client';

type Intercept = (command: string | undefined, input: Record<string, unknown>) => void;

let added = 0;

/**
 * Runs `body` with each request of the process's table client (the one the handlers use) shown first to
 * `intercept`, which may count it or throw as the store would; taken off again however `body` ends.
 */
export async function intercepting<T>(intercept: Intercept, body: () => Promise<T>): Promise<T> {
  const { doc } = getTableClient();
  const name = `intercept-${++added}`;
  const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    intercept(context.commandName, (args as { input: Record<string, unknown> }).input);
    return next(args);
  };
  doc.middlewareStack.add(middleware as never, { step: 'initialize', name });
  try {
    return await body();
  } finally {
    doc.middlewareStack.remove(name);
  }
}

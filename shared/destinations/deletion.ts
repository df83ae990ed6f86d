import { isRetryableStatus } from './http-client';
import type { DeletionIO, DeletionOutcome, DeletionUser, DeliveryResult, DestinationRequest } from './types';

/**
 * How a vendor's answer to a deletion request ends the job, the same for every vendor: 2xx deleted; 404 the
 * vendor does not know the user; 405 or 501 it cannot delete (both final, with the reason); 5xx, 429, 408 and
 * no answer worth retrying; any other 4xx final. The error carries what the vendor said.
 */
export function deletionOutcome(vendor: string, result: DeliveryResult): DeletionOutcome {
  const { status } = result;
  if (status >= 200 && status < 300) return { status: 'completed' };
  const said = result.error ?? (typeof result.response === 'string' ? result.response : JSON.stringify(result.response));
  const text = `${vendor} answered ${status}: ${said}`.slice(0, 1000);
  if (status === 404) return { status: 'not_found', reason: text };
  if (status === 405 || status === 501) return { status: 'unsupported', reason: text };
  return { status: 'failed', error: text, retryable: result.error !== undefined ? result.retryable : isRetryableStatus(status) };
}

/**
 * Deletes user after user, `deleteUser` giving the outcome of each request it sends for one (or a final failure
 * for a user it cannot delete): an answer that the vendor cannot delete ends the job; otherwise the worst outcome
 * wins, a retryable failure (sending again may succeed for all), else the first final one.
 */
export async function deleteEachUser(
  users: DeletionUser[],
  deleteUser: (user: DeletionUser) => Promise<DeletionOutcome | DeletionOutcome[]>,
): Promise<DeletionOutcome> {
  const failures: Extract<DeletionOutcome, { status: 'failed' }>[] = [];
  for (const user of users) {
    for (const outcome of [await deleteUser(user)].flat()) {
      if (outcome.status === 'failed') failures.push(outcome);
      else if (outcome.status === 'unsupported') return outcome;
    }
  }
  return failures.find((f) => f.retryable) ?? failures[0] ?? { status: 'completed' };
}

/**
 * Deletes the users `size` at a time, one request (`request`) per slice, one slice after the other: the first
 * answer that is not a deletion ends the job with its outcome (deletionOutcome); all deleted, it is completed.
 */
export async function deleteInSlices(
  vendor: string,
  users: DeletionUser[],
  size: number,
  io: DeletionIO,
  request: (slice: DeletionUser[]) => DestinationRequest,
): Promise<DeletionOutcome> {
  for (let i = 0; i < users.length; i += size) {
    const outcome = deletionOutcome(vendor, await io.send(request(users.slice(i, i + size))));
    if (outcome.status !== 'completed') return outcome;
  }
  return { status: 'completed' };
}

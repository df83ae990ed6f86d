import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableClient } from '../../shared/persistence/table-client';
import { itemBytes, itemKey, partitionUse, type PartitionUse, type TransactSizes } from './partitions';

/**
 * AWS list prices, us-east-1 (DynamoDB on-demand as reduced on 2024-11-01; Lambda on Arm; API Gateway REST
 * APIs, first 333 million requests), as published on the AWS pricing pages, read 2026-11-24.
 */
export const PRICES = {
  writeRequestUnit: 0.625 / 1e6,
  readRequestUnit: 0.125 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000133334,
  restApiRequest: 3.5 / 1e6,
  /** What an invocation waits for besides its own CPU: a DynamoDB round trip in the region, a vendor's answer. */
  storeRoundTripMs: 5,
  vendorRequestMs: 100,
  note:
    'us-east-1 list prices: DynamoDB on-demand US$0.625/M WRU, US$0.125/M RRU; Lambda Arm US$0.20/M requests + US$0.0000133334/GB-s; ' +
    'API Gateway REST US$3.50/M requests; billed Lambda time = measured CPU + 5 ms per store round trip + 100 ms per vendor request ' +
    '(requests in flight at once counted once)',
};

interface Request {
  command: string;
  write: boolean;
  wru: number;
  rru: number;
  /** The request's keys and items as text, to tell which item (or destination) it was about. */
  keys: string;
  /** Where its units went, by partition key. */
  partitions: PartitionUse[];
}

export interface DbUsage {
  requests: number;
  writeRequests: number;
  wru: number;
  rru: number;
}

export interface StageUsage extends DbUsage {
  name: string;
  invocations: number;
  cpuMs: number;
  wallMs: number;
  /**
   * The stage's time waiting for vendors, as billed: PRICES.vendorRequestMs for each request, those in flight at
   * once counted once (set by the caller when known).
   */
  vendorWaitMs?: number;
  log?: Request[];
}

const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

/**
 * Counts every DynamoDB request the handlers of this process make, with the capacity DynamoDB reports for it
 * (ReturnConsumedCapacity is asked on each), between start() and stop().
 */
class UsageCounter {
  private log: Request[] | undefined;
  private attached: TableClient | undefined;
  /** The counter's own reads (a transaction's item sizes): never counted. */
  private readonly own = new WeakSet<object>();

  attach(store: TableClient): void {
    this.attached = store;
    store.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (!this.log || this.own.has(input)) return next(args);
        input.ReturnConsumedCapacity = 'INDEXES';
        const result = await next(args);
        const output = result.output as { ConsumedCapacity?: { CapacityUnits?: number; WriteCapacityUnits?: number; ReadCapacityUnits?: number }[] };
        const command = String(context.commandName ?? '');
        const write = WRITES.test(command);
        let units = 0;
        for (const c of [output.ConsumedCapacity ?? []].flat()) units += c.CapacityUnits ?? 0;
        const transact = command === 'TransactWriteItemsCommand';
        const sizes = transact ? await this.sizesOf(input) : undefined;
        const partitions = partitionUse(command, input, result.output as Record<string, unknown>, sizes);
        // A transaction's units as AWS bills them, item by item (partitions.ts), not as DynamoDB Local reports them.
        if (transact) units = partitions.reduce((n, p) => n + p.wcu, 0);
        // Reads as AWS bills them: a key that finds nothing still costs the minimum (DynamoDB Local reports 0).
        const rru = write
          ? 0
          : Math.max(
              units,
              partitions.reduce((n, p) => n + p.rcu, 0),
            );
        this.log?.push({ command, write, wru: write ? units : 0, rru, keys: JSON.stringify(input), partitions });
        return result;
      },
      { step: 'initialize', name: 'benchUsage' },
    );
  }

  /** What the items a transaction updated, deleted or checked hold now (read outside the counts). */
  private async sizesOf(input: Record<string, unknown>): Promise<TransactSizes> {
    const sizes: TransactSizes = new Map();
    const store = this.attached!;
    const keys = (input.TransactItems as Record<string, { Key?: Record<string, unknown> }>[])
      .map((t) => Object.values(t)[0]!.Key)
      .filter((key): key is Record<string, unknown> => key !== undefined);
    for (let i = 0; i < keys.length; i += 100) {
      const request = { RequestItems: { [store.table]: { Keys: keys.slice(i, i + 100).map((k) => ({ pk: k.pk, sk: k.sk })), ConsistentRead: true } } };
      this.own.add(request);
      const answer = await store.doc.send(new BatchGetCommand(request));
      for (const item of answer.Responses?.[store.table] ?? []) sizes.set(itemKey(item), itemBytes(item));
    }
    return sizes;
  }

  detach(): void {
    this.attached?.doc.middlewareStack.remove('benchUsage');
  }

  start(_stage: string): void {
    this.log = [];
  }

  stop(): DbUsage & { log: Request[] } {
    const log = this.log ?? [];
    this.log = undefined;
    return { ...sum(log), log };
  }

  /** The part of a stage's usage whose requests mention `match` (an item's key or a destination's id). */
  slice(usage: StageUsage, match: (keys: string) => boolean): DbUsage {
    return sum((usage.log ?? []).filter((r) => match(r.keys)));
  }
}

function sum(log: Request[]): DbUsage {
  return log.reduce((s, r) => ({ requests: s.requests + 1, writeRequests: s.writeRequests + (r.write ? 1 : 0), wru: s.wru + r.wru, rru: s.rru + r.rru }), {
    requests: 0,
    writeRequests: 0,
    wru: 0,
    rru: 0,
  });
}

export const usageCounter = new UsageCounter();

/** Lambda's bill for a stage: its invocations, and GB-seconds of the time they are modelled to take. */
export function lambdaCost(usage: StageUsage, memoryMb: number): { usd: number; billedMs: number } {
  const billedMs = usage.cpuMs + usage.requests * PRICES.storeRoundTripMs + (usage.vendorWaitMs ?? 0);
  return { billedMs, usd: usage.invocations * PRICES.lambdaRequest + (billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaGbSecond };
}

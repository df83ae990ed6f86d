import { callsOf, recordOf } from '../../../shared/destinations/firehose';

/** PutRecordBatch's limits: at most 500 records and 4 MiB of data a call, consecutive records kept in order. */
const records = (count: number, bytes: number) => [...Array(count).keys()].map((i) => Buffer.alloc(bytes, i % 256));

test('1,200 small records go in calls of 500, 500 and 200, in order', () => {
  const all = records(1200, 10);
  const calls = callsOf(all);
  expect(calls.map((c) => c.length)).toEqual([500, 500, 200]);
  expect(calls.flat()).toEqual(all);
});

test('records of 1 MiB go four to a call: a fifth would pass 4 MiB', () => {
  expect(callsOf(records(9, 1024 * 1024)).map((c) => c.length)).toEqual([4, 4, 1]);
  expect(callsOf(records(5, 1024 * 1024 - 1)).map((c) => c.length)).toEqual([4, 1]);
});

test("a record is an event's JSON and a newline; one over 1,000 KiB is refused", () => {
  expect(Buffer.from(recordOf({ type: 'track', messageId: 'm' }) as Uint8Array).toString()).toBe('{"type":"track","messageId":"m"}\n');
  expect(recordOf({ blob: 'x'.repeat(1000 * 1024) })).toEqual({ refused: "the event is larger than Firehose's 1024000 bytes a record" });
});

import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptEvent as accept, weirIdOf, type IngestedEvent } from '../../shared/domain/ingestion/events';

const acceptEvent = (...args: Parameters<typeof accept>) => accept(...args) as IngestedEvent;
import { newId } from '../../shared/domain/ids';

describe('acceptEvent', () => {
  const context = { receivedAt: '2026-11-24T10:00:00.000Z', ip: '203.0.113.9', clock: 'original-timestamp' } as const;

  it('copies the event with its keys in order and appends what the service adds, leaving the input as it was', () => {
    const raw = JSON.parse('{"userId":"u-1","type":"track","event":"Bought","properties":{"price":3}}') as Record<string, unknown>;
    const accepted = acceptEvent(raw, 0, context);
    expect(Object.keys(accepted)).toEqual(['userId', 'type', 'event', 'properties', 'messageId', 'receivedAt', 'request_ip', 'context', 'weirId']);
    expect(accepted).toMatchObject({ receivedAt: context.receivedAt, request_ip: context.ip, weirId: weirIdOf(raw) });
    expect(accepted.properties).toBe(raw.properties);
    expect(Object.keys(raw)).toEqual(['userId', 'type', 'event', 'properties']);
  });

  it('keeps a key named __proto__ as a key, and the copy an ordinary object', () => {
    const raw = JSON.parse('{"type":"track","userId":"u-1","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const accepted = acceptEvent(raw, 0, context);
    expect(Object.getPrototypeOf(accepted)).toBe(Object.prototype);
    expect((accepted as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(accepted))).toEqual(
      JSON.parse(
        `{"type":"track","userId":"u-1","__proto__":{"polluted":true},"messageId":"${accepted.messageId}","receivedAt":"${context.receivedAt}","request_ip":"${context.ip}","context":{"ip":"${context.ip}"},"weirId":"${accepted.weirId}"}`,
      ),
    );
  });

  it('keeps the request_ip an event brings, and the type of the path over the body', () => {
    const accepted = acceptEvent({ type: 'page', anonymousId: 'a', request_ip: '198.51.100.1' }, 0, { ...context, type: 'track' });
    expect(accepted).toMatchObject({ type: 'track', request_ip: '198.51.100.1' });
  });

  it('refuses an id that is no string and no finite number naming its field, and takes null as none', () => {
    for (const field of ['userId', 'anonymousId', 'messageId']) {
      for (const value of [{ toString: 'x' }, { valueOf: 'x' }, ['u'], { id: 'u' }, true, Infinity]) {
        expect(() => accept({ type: 'track', userId: 'u', anonymousId: 'a', [field]: value }, 2, context)).toThrow(
          `batch[2].${field}: is neither a string nor a number`,
        );
      }
    }
    expect(acceptEvent({ type: 'track', userId: null, anonymousId: 7, messageId: 12 }, 0, context)).toMatchObject({ messageId: '12' });
  });

  it('derives weirId from the ids as text: a number as its digits, the same as before for strings', () => {
    const md5 = (text: string) =>
      createHash('md5')
        .update(text)
        .digest('hex')
        .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    expect(weirIdOf({ userId: 'u-1', anonymousId: 'a-1' })).toBe(md5('u-1a-1'));
    expect(weirIdOf({ userId: 42, anonymousId: null })).toBe(md5('42'));
  });
});

describe('newId', () => {
  it('makes ULIDs that are distinct and sort by creation across milliseconds', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(...Array.from({ length: 300 }, () => newId()));
      await sleep(2);
    }
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});

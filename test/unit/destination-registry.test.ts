import type * as Errors from '../../shared/destinations/errors';
import { isDestinationError } from '../../shared/destinations/errors';
import type * as Registry from '../../shared/destinations/registry';
import { destinationType } from '../../shared/destinations/registry';
import { webhookDefinition } from '../../shared/destinations/webhook/definition';

// The registry joins each type's definition to its code, which it loads on the type's first use
// (shared/destination-code.ts); test/infra/bundle-budgets.test.ts holds the bundled form to the same.

test("a type's code is loaded on its first use, not with the registry", () => {
  let loads = 0;
  jest.isolateModules(() => {
    jest.doMock('../../shared/destinations/webhook', () => {
      loads++;
      return jest.requireActual('../../shared/destinations/webhook');
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const registry = require('../../shared/destinations/registry') as typeof Registry;
    expect(loads).toBe(0);
    registry.destinationType('MP');
    expect(loads).toBe(0);
    expect(registry.destinationType('WEBHOOK')?.transform).toEqual(expect.any(Function));
    registry.destinationType('WEBHOOK');
    expect(loads).toBe(1);
  });
});

test('a type is its definition (name, display name, schema) joined to its code, the same object at each use', () => {
  const webhook = destinationType('WEBHOOK');
  expect(webhook).toMatchObject({ name: 'WEBHOOK', displayName: 'Webhook', delivery: 'http' });
  expect(webhook?.config).toBe(webhookDefinition.config);
  expect(destinationType('WEBHOOK')).toBe(webhook);
});

test('a name Weir does not know finds no type, nor does a name every object inherits', () => {
  expect(['NOPE', 'webhook', 'constructor', '__proto__', 'toString'].map(destinationType)).toEqual([undefined, undefined, undefined, undefined, undefined]);
});

test("a DestinationError made by another copy of its module (a type's code bundled on its own) is told as one", () => {
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const copy = require('../../shared/destinations/errors') as typeof Errors;
    const error = copy.configurationError('Invalid URL in destination config');
    expect(isDestinationError(error)).toBe(true);
    expect(isDestinationError(new Error('Invalid URL in destination config'))).toBe(false);
    expect(isDestinationError('DestinationError')).toBe(false);
  });
});

import { commerceOf, eventIdOf, networkEventName } from '../../../shared/destinations/ad-commerce';
import { clientOf, hashedIdentifiers, hashIdentifier, NORMALISE, normalisePhone } from '../../../shared/destinations/ad-matching';
import { base, CONTEXT, HASHED, ORDER, PRODUCT_ADDED, sha } from '../../support/ad-events';

/**
 * The customer information every ad network matches on, normalised as their pages say (Meta "Customer
 * Information Parameters", Pinterest `user_data`, Snap "User Data Parameters") and SHA-256 hashed.
 */
describe('customer information normalisation and hashing (one module for the four networks)', () => {
  it("hashes Snap's documented examples to the documented hashes (User Data Parameters: em, ph)", () => {
    expect(hashIdentifier('em', 'Person@Example.com')).toBe('542d240129883c019e106e3b1b2d3f3cb3537c43c425364de8e951d5a3083345');
    expect(NORMALISE.ph('+44 844 412 4653')).toBe('448444124653');
    expect(hashIdentifier('ph', '+44 844 412 4653')).toBe('dc008fda46e2e64002cf2f82a4906236282d431c4f75e5b60bfe79fc48546383');
  });

  it('email: trimmed and lowercased', () => {
    expect(NORMALISE.em(' Ada@Example.COM '.trim())).toBe('ada@example.com');
    expect(hashIdentifier('em', '  Ada@Example.COM\t')).toBe(sha('ada@example.com'));
  });

  it('phone: digits only with the country code, the international prefix (00 or +) and leading zeros dropped', () => {
    expect(NORMALISE.ph('+1 (415) 555-0100')).toBe('14155550100');
    expect(NORMALISE.ph('0044 20 7946 0958')).toBe('442079460958');
    expect(NORMALISE.ph('tel: +33-1-23-45-67-89')).toBe('33123456789');
  });

  it('phone: a national number (no + or 00) gets the configured country code, its trunk zero dropped; an international one keeps its own', () => {
    expect(normalisePhone('020 7946 0958', { phoneCountryCode: '44' })).toBe('442079460958');
    expect(normalisePhone('(415) 555-0100', { phoneCountryCode: '1' })).toBe('14155550100');
    expect(normalisePhone('+33 1 23 45 67 89', { phoneCountryCode: '44' })).toBe('33123456789');
    expect(normalisePhone('0033 1 23 45 67 89', { phoneCountryCode: '44' })).toBe('33123456789');
    expect(normalisePhone('020 7946 0958')).toBe('2079460958');
    expect(hashIdentifier('ph', '020 7946 0958', { phoneCountryCode: '44' })).toBe(sha('442079460958'));
    expect(hashedIdentifiers({ type: 'track', context: { traits: { phone: '07700 900123' } } }, { phoneCountryCode: '44' })).toEqual({
      ph: sha('447700900123'),
    });
  });

  it('names: lowercase without punctuation; city without spaces, digits or punctuation; state a lowercase code', () => {
    expect(NORMALISE.fn('Ada')).toBe('ada');
    expect(NORMALISE.ln("O'Neil-Smith")).toBe('oneilsmith');
    expect(NORMALISE.fn('Zoë')).toBe('zoë');
    expect(NORMALISE.ct('San Francisco')).toBe('sanfrancisco');
    expect(NORMALISE.ct('Saint-Étienne 42')).toBe('saintétienne');
    expect(NORMALISE.st(' CA ')).toBe('ca');
  });

  it('zip: lowercase without spaces or dashes, a US ZIP+4 cut to 5 digits; country: the lowercase ISO alpha-2 code', () => {
    expect(NORMALISE.zp('94105-1234')).toBe('94105');
    expect(NORMALISE.zp('941051234')).toBe('94105');
    expect(NORMALISE.zp('SW1A 1AA')).toBe('sw1a1aa');
    expect(NORMALISE.country(' US ')).toBe('us');
    expect(hashIdentifier('country', 'United States')).toBeUndefined();
  });

  it('gender f or m; external ids trimmed and lowercased; empty values and unknown genders are left out', () => {
    expect(NORMALISE.ge('Female')).toBe('f');
    expect(NORMALISE.ge('M')).toBe('m');
    expect(hashIdentifier('ge', 'other')).toBeUndefined();
    expect(hashIdentifier('external_id', ' U-1 ')).toBe(sha('u-1'));
    expect(hashIdentifier('em', '   ')).toBeUndefined();
    expect(hashIdentifier('em', 42)).toBe(sha('42'));
  });

  it('passes a value that already is a SHA-256 hash unchanged (lowercased), so it is never hashed twice', () => {
    const hashed = sha('ada@example.com');
    expect(hashIdentifier('em', hashed.toUpperCase())).toBe(hashed);
  });

  it("reads the event's identifiers from context.traits (or an identify's traits) and their address; the userId is external_id", () => {
    expect(hashedIdentifiers(base)).toEqual(HASHED);
    expect(hashedIdentifiers({ type: 'track', anonymousId: 'a', traits: { email: 'x@y.io' }, context: {} })).toEqual({ em: sha('x@y.io') });
    expect(hashedIdentifiers({ type: 'track', userId: 'u', context: { traits: { city: 'Paris', zip: '75001' } } })).toEqual({
      ct: sha('paris'),
      zp: sha('75001'),
      external_id: sha('u'),
    });
    expect(clientOf(base)).toEqual({ ip: CONTEXT.ip, userAgent: CONTEXT.userAgent });
  });
});

describe('ecommerce properties, the event id and event names (shared by the four networks)', () => {
  it('an order: its products, value from revenue, currency upper-cased, order id and item count', () => {
    expect(commerceOf(ORDER)).toEqual({
      value: 40,
      currency: 'EUR',
      orderId: 'o-9',
      numItems: 3,
      products: [
        { id: 'p-1', name: 'Monitor', category: 'Screens', brand: 'Acme', price: 19.99, quantity: 2 },
        { id: 'SKU-2', price: 1.52 },
      ],
    });
  });

  it('a single product: the properties are the product, the value its price × quantity', () => {
    expect(commerceOf(PRODUCT_ADDED)).toEqual({
      value: 39.98,
      currency: 'USD',
      numItems: 2,
      products: [{ id: 'p-1', name: 'Monitor', price: 19.99, quantity: 2 }],
    });
  });

  it('event_id is the messageId; an event without one is refused', () => {
    expect(eventIdOf(base, 'X')).toBe('m-1');
    expect(() => eventIdOf({ type: 'track' }, 'X')).toThrow('X needs a messageId (event_id, the key it de-duplicates on)');
  });

  it('the configured map wins over the standard mapping, which wins over the fallback', () => {
    const standard = { 'Order Completed': 'Purchase' };
    const name = (event: string, map?: { from: string; to: string }[]) => networkEventName({ type: 'track', event }, standard, map, (e) => `custom:${e}`);
    expect(name('Order Completed')).toBe('Purchase');
    expect(name('Order Completed', [{ from: 'Order Completed', to: 'Lead' }])).toBe('Lead');
    expect(name('Trial Started')).toBe('custom:Trial Started');
    expect(() => name('  ')).toThrow('a track event needs an event name');
  });
});

import { place } from '../../../shared/destinations/postgres/columns';
import { eventTable, flattenColumns, snakeCase } from '../../../shared/destinations/postgres/rows';
import { chunkHour, objectKey } from '../../../shared/destinations/s3/objects';

describe('warehouse names', () => {
  it.each([
    ['Order Completed', 'order_completed'],
    ['productId', 'product_id'],
    ['HTMLTitle', 'html_title'],
    ['already_snake', 'already_snake'],
    ['  Spaces -- and.dots ', 'spaces_and_dots'],
    ['item2Count', 'item2_count'],
    ['3D View', '_3d_view'],
    ['Ünïcode Évent', 'ünïcode_évent'],
    ['!!!', ''],
  ])('%s → %s', (name, expected) => expect(snakeCase(name)).toBe(expected));

  it('cuts names to 63 bytes without splitting a character', () => {
    expect(snakeCase('a'.repeat(70))).toBe('a'.repeat(63));
    expect(Buffer.byteLength(snakeCase('é'.repeat(40)))).toBe(62);
  });

  it("gives a track event's table a leading _ where a type's table has the name, and none to a nameless event", () => {
    expect(eventTable('Identifies')).toBe('_identifies');
    expect(eventTable('users')).toBe('_users');
    expect(eventTable('Checkout Started')).toBe('checkout_started');
    expect(eventTable('???')).toBeUndefined();
    expect(eventTable(undefined)).toBeUndefined();
  });

  it('flattens objects with _, keeps arrays as JSON text, leaves out null', () => {
    expect(flattenColumns({ shippingAddress: { zipCode: '1', geo: { lat: 1.5 } }, tags: ['a', 2], none: null, '1st': true }, 'context')).toEqual({
      context_shipping_address_zip_code: '1',
      context_shipping_address_geo_lat: 1.5,
      context_tags: '["a",2]',
      context_1st: true,
    });
  });
});

describe('warehouse column types', () => {
  it('plans new columns with the type of their first value, and conflicting values in <column>_<type>', () => {
    const layout = new Map([
      [
        't',
        new Map([
          ['id', 'text'],
          ['n', 'bigint'],
          ['flag', 'boolean'],
          ['at', 'timestamp with time zone'],
        ]),
      ],
    ]);
    const { rows, additions } = place(
      [
        { table: 't', values: { id: 'a', n: 1, flag: true, at: '2026-01-01T00:00:00Z', name: 'x' } },
        { table: 't', values: { id: 'b', n: 1.5, flag: 'yes', at: 3, name: 7 } },
      ],
      layout,
    );
    expect(rows.map((row) => row.values)).toEqual([
      { id: 'a', n: 1, flag: true, at: '2026-01-01T00:00:00Z', name: 'x' },
      { id: 'b', n_float: 1.5, flag_string: 'yes', at_int: 3, name: '7' },
    ]);
    expect(Object.fromEntries(additions.get('t')!)).toEqual({ name: 'string', n_float: 'float', flag_string: 'string', at_int: 'int' });
  });

  it('plans a table that does not exist yet, and strips NUL from text', () => {
    const { rows, additions } = place([{ table: 'new', values: { id: 'a', note: 'a\u0000b' } }], new Map());
    expect(rows[0]!.values).toEqual({ id: 'a', note: 'ab' });
    expect(Object.fromEntries(additions.get('new')!)).toEqual({ id: 'string', note: 'string' });
  });
});

describe('S3 object names', () => {
  it('files a chunk under prefix/source/yyyy/mm/dd/hh (UTC) of its earliest receivedAt, named by the chunk key', () => {
    const hour = chunkHour([{ receivedAt: '2026-01-02T03:59:00+01:00' }, { receivedAt: '2026-01-02T04:10:00Z' }, { timestamp: '2020-01-01T00:00:00Z' }]);
    expect(objectKey('/exports/weir/', 'src', 'abc', hour)).toBe('exports/weir/src/2026/01/02/02/abc.json.gz');
    expect(objectKey(undefined, 'src', 'abc', hour)).toBe('src/2026/01/02/02/abc.json.gz');
  });
});

import { isRecord } from '../message';
import { paramValue } from './names';

/**
 * GA4 recommended ecommerce events for the event spec's ecommerce names. Docs: Measurement Protocol "Events"
 * reference (developers.google.com/analytics/devguides/collection/protocol/ga4/reference/events): search,
 * view_item_list, select_item, view_item, add_to_cart, remove_from_cart, view_cart, begin_checkout,
 * add_payment_info, purchase, refund, each with its parameters and the Item parameters.
 */
interface Mapping {
  name: string;
  /** Where the items come from: the properties themselves (one product), properties.products, or none. */
  items: 'product' | 'products' | 'none';
  /** GA4 parameter → the properties that may hold it, first present wins. */
  fields: Record<string, string[]>;
}

const MONEY = { currency: ['currency'], value: ['value', 'revenue', 'total'] };

const MAPPINGS: Record<string, Mapping> = {
  'Products Searched': { name: 'search', items: 'none', fields: { search_term: ['query'] } },
  'Product List Viewed': { name: 'view_item_list', items: 'products', fields: { item_list_id: ['list_id'], item_list_name: ['category'] } },
  'Product Clicked': { name: 'select_item', items: 'product', fields: { item_list_id: ['list_id'] } },
  'Product Viewed': { name: 'view_item', items: 'product', fields: MONEY },
  'Product Added': { name: 'add_to_cart', items: 'product', fields: MONEY },
  'Product Removed': { name: 'remove_from_cart', items: 'product', fields: MONEY },
  'Cart Viewed': { name: 'view_cart', items: 'products', fields: MONEY },
  'Checkout Started': { name: 'begin_checkout', items: 'products', fields: { ...MONEY, coupon: ['coupon'] } },
  'Payment Info Entered': {
    name: 'add_payment_info',
    items: 'products',
    fields: { ...MONEY, coupon: ['coupon'], payment_type: ['payment_method'] },
  },
  'Order Completed': {
    name: 'purchase',
    items: 'products',
    fields: {
      transaction_id: ['order_id'],
      ...MONEY,
      tax: ['tax'],
      shipping: ['shipping'],
      coupon: ['coupon'],
      affiliation: ['affiliation'],
    },
  },
  'Order Refunded': { name: 'refund', items: 'products', fields: { transaction_id: ['order_id'], ...MONEY } },
};

const NUMERIC = new Set(['value', 'tax', 'shipping', 'price', 'quantity', 'discount', 'index']);

const toNumber = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/** A parameter as GA4 types it: numbers for the money and count parameters, text (cut to its limit) otherwise. */
const typed = (name: string, value: unknown) => (NUMERIC.has(name) ? toNumber(value) : paramValue(name, typeof value === 'number' ? String(value) : value));

// Item parameters: GA4 item field → the product fields that may hold it.
const ITEM_FIELDS: Record<string, string[]> = {
  item_id: ['product_id', 'sku', 'id'],
  item_name: ['name'],
  item_brand: ['brand'],
  item_category: ['category'],
  item_variant: ['variant'],
  price: ['price'],
  quantity: ['quantity'],
  coupon: ['coupon'],
  index: ['position'],
  affiliation: ['affiliation'],
};
const PRODUCT_KEYS = Object.values(ITEM_FIELDS).flat();

function pick(source: Record<string, unknown>, fields: Record<string, string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [param, keys] of Object.entries(fields)) {
    const key = keys.find((k) => source[k] !== undefined && source[k] !== null && source[k] !== '');
    const value = key === undefined ? undefined : typed(param, source[key]);
    if (value !== undefined) out[param] = value;
  }
  return out;
}

/** Item: one of item_id or item_name is required, so a product with neither is left out. */
function itemsOf(products: unknown[]): Record<string, unknown>[] {
  return products
    .filter(isRecord)
    .map((p) => pick(p, ITEM_FIELDS))
    .filter((item) => item.item_id !== undefined || item.item_name !== undefined);
}

/** The recommended event for an ecommerce track, with the properties it did not use; undefined for other names. */
export function ecommerceEvent(event: string, properties: Record<string, unknown>) {
  const mapping = MAPPINGS[event];
  if (!mapping) return undefined;
  const params = pick(properties, mapping.fields);
  const products = mapping.items === 'product' ? [properties] : Array.isArray(properties.products) ? properties.products : [];
  const items = mapping.items === 'none' ? [] : itemsOf(products);
  // "value": the sum of price * quantity; one product's own price stands in when no value was given.
  if (mapping.items === 'product' && params.value === undefined && items[0]?.price !== undefined && 'value' in mapping.fields) {
    const value = (items[0].price as number) * ((items[0].quantity as number | undefined) ?? 1);
    params.value = Number(value.toFixed(6)); // 10.01 * 3 is 30.029999… in floating point
  }
  if (items.length > 0) params.items = items;
  const used = new Set([...Object.values(mapping.fields).flat(), 'products', ...(mapping.items === 'product' ? PRODUCT_KEYS : [])]);
  const rest = Object.fromEntries(Object.entries(properties).filter(([key]) => !used.has(key)));
  return { name: mapping.name, params, rest };
}

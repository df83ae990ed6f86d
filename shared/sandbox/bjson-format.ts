// The pieces of QuickJS's binary object format (JS_WriteObject / JS_ReadObject) that the host codec
// in bjson.ts reads and writes; see there for the layout.

export const BJSON_VERSION = 5;

export const TAG_NULL = 1;
export const TAG_UNDEFINED = 2;
export const TAG_FALSE = 3;
export const TAG_TRUE = 4;
export const TAG_INT32 = 5;
export const TAG_FLOAT64 = 6;
export const TAG_STRING = 7;
export const TAG_OBJECT = 8;
export const TAG_ARRAY = 9;

/** Deeper input is sent as JSON text: the guest's parser then decides about stack limits, as before. */
export const MAX_ENCODE_DEPTH = 64;

/** Thrown inside a codec to give up on the binary form; never escapes it. */
export class Bail extends Error {}
export const BAIL = new Bail();

/** The bytes are not plain JSON data in the format above. */
export class NotPlain extends Error {}
export const NOT_PLAIN = new NotPlain('not plain JSON data in the expected binary format');

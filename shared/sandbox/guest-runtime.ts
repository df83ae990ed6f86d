/** File name of the runtime script inside the sandbox; appears only in frames that error texts cut off. */
export const GUEST_RUNTIME_FILENAME = 'weir runtime';

/** Error codes the guest runtime puts in result rows instead of the texts, which live on the host. */
export const CONTRACT_ERRORS: Readonly<Record<number, string>> = {
  1: 'returned event from transformEvent(event) is not an object',
  2: 'returned event in events array from transformEvent(event) is not an object',
  3: 'returned events from transformBatch(event) is not an array',
  4: 'returned event in events array from transformBatch(events) is not an object',
};

/**
 * Script evaluated in every fresh context before any user code. It defines `log` and evaluates to
 * `[setup, intrinsics]`. `setup(testMode, logLimit, emit)` returns `run(namespace, input)`; input is the
 * events' JSON text or a host function that returns them already decoded. `run` applies the
 * transformEvent/transformBatch contract and returns one JSON string, synchronously or as a promise:
 *   {"c": "<found names>"}                             not exactly one entry point is exported
 *   {"e": entry, "r": [row...], "l": [log...], "x": 0|1}  x = 1 when logs overflowed the limit
 * A row is [metadataIndex, event] or [metadataIndex, 0, error], where error is a CONTRACT_ERRORS code,
 * a [String(err), err.stack] pair or a plain text; metadataIndex points at the input event whose
 * metadata the output carries (-1 = {}), so metadata never travels back through JSON.
 * When `emit` is given, the result object is first offered to it (with its number of rows), at the moment
 * it would have been stringified; if the host took it in binary form, `run` returns 0 instead of the string.
 * `intrinsics` are captured for GUEST_CHECK_SOURCE, which is compiled only when a result is offered.
 *
 * It is compiled for every context and QuickJS compiles at roughly 0.15 ms per KB, which is why it is
 * terse and why fetch/fetchV2 are host functions and error texts are assembled on the host.
 * Intrinsics are captured before user code runs and arrays are filled by index, so user code that
 * replaces JSON, Promise statics or Array.prototype methods only breaks itself, not the contract.
 */
export const GUEST_RUNTIME_SOURCE = String.raw`(function () {
var T = false, L = 0, S = JSON.stringify, P = JSON.parse, O = Function.prototype.call.bind(Object.prototype.toString), A = Array.isArray,
  R = Promise.resolve.bind(Promise), W = Promise.all.bind(Promise), logs = [], size = 0, x = 0, E, H,
  N = Object.getOwnPropertyNames, I = Int32Array, AP = Array.prototype, OP = Object.prototype;
Object.defineProperty(globalThis, 'log', { writable: true, configurable: true, value: function log() {
  if (!T) return;
  var s = 'Log:';
  for (var a of arguments) s += ' ' + (typeof a == 'object' ? S(a) : String(a));
  if (x) return;
  size += s.length;
  if (size > L) x = 1; else logs[logs.length] = s;
} });
function isObj(v) { return O(v) == '[object Object]'; }
// limit errors end the invocation instead of becoming an event's error
function limit(e) {
  try {
    var m = e.message, k = e.name;
    return m == 'stack overflow' && (k == 'InternalError' || k == 'SyntaxError') || m == 'out of memory' && k == 'InternalError';
  } catch (_) { return false; }
}
function err(e) {
  try {
    if (e && typeof e == 'object') {
      if (typeof e.stack == 'string') return [String(e), e.stack];
      if (typeof e.message == 'string') return e.message;
    }
    return String(e);
  } catch (_) { return 'Error'; }
}
function run(ns, input) {
  var found = '', count = 0, k, i;
  for (i = 0; i < 2; i++) {
    k = i ? 'transformBatch' : 'transformEvent';
    try { if (typeof ns[k] == 'function') { found = count++ ? found + ',' + k : k; } } catch (_) {}
  }
  if (count != 1) return S({ c: found });
  k = found;
  var fn = ns[k], ev = typeof input == 'string' ? P(input) : input(), n = ev.length, ids = Object.create(null), out = [];
  // held until the sandbox is discarded, so the invocation does not spend time freeing them one by one
  H = [ev, out];
  for (i = 0; i < n; i++) ids[ev[i].message.messageId] = i;
  function at(e) { if (!e) return -1; var j = ids[e.messageId]; return j === undefined ? -1 : j; }
  function meta(e) { var j = at(e); return j < 0 ? {} : ev[j].metadata || {}; }
  function fin(rows) { var o = { e: k, r: rows, l: logs, x: x }; H[2] = o; return E && E(o, rows.length) ? 0 : S(o); }
  function bad(i, j, e) { if (limit(e)) throw e; out[i] = [[j, 0, err(e)]]; }
  function then(r) { return r && (typeof r == 'object' || typeof r == 'function') && typeof r.then == 'function'; }
  if (k == 'transformEvent') {
    var put = function (i, j, r) {
      try {
        if (r == null) return;
        if (!A(r)) { out[i] = [isObj(r) ? [j, r] : [j, 0, 1]]; return; }
        var rows = [];
        for (var q = 0; q < r.length; q++) if (q in r) {
          if (!isObj(r[q])) { out[i] = [[j, 0, 2]]; return; }
          rows[rows.length] = [j, r[q]];
        }
        out[i] = rows;
      } catch (e) { bad(i, j, e); }
    }, wait = [];
    // one function call per event, not a for-let body: QuickJS loses per-iteration bindings when
    // the body leaves a try block with continue
    var each = function (i) {
      var m = ev[i].message, j = at(m), r;
      try {
        r = fn(m, meta);
        if (then(r)) { wait[wait.length] = R(r).then(function (v) { put(i, j, v); }, function (e) { bad(i, j, e); }); return; }
      } catch (e) { bad(i, j, e); return; }
      put(i, j, r);
    };
    for (i = 0; i < n; i++) each(i);
    var flat = function () {
      var rows = [];
      for (var i = 0; i < n; i++) if (out[i]) for (var q = 0; q < out[i].length; q++) rows[rows.length] = out[i][q];
      return fin(rows);
    };
    return wait.length ? W(wait).then(flat) : flat();
  }
  var msgs = [];
  for (i = 0; i < n; i++) msgs[i] = ev[i].message;
  var batch = function (r) {
    if (!A(r)) return fin([[-1, 0, 3]]);
    var rows = [];
    for (var q = 0; q < r.length; q++) rows[q] = isObj(r[q]) ? [at(r[q]), r[q]] : [-1, 0, 4];
    return fin(rows);
  }, failed = function (e) { if (limit(e)) throw e; return fin([[-1, 0, err(e)]]); }, r;
  try {
    r = fn(msgs, meta);
    if (then(r)) return R(r).then(batch, failed);
  } catch (e) { return failed(e); }
  return batch(r);
}
return [function setup(testMode, logLimit, emit) { T = testMode; L = logLimit; E = emit; return run; }, [I, N, AP, OP]];
})()`;

/**
 * Evaluates to a factory that takes the runtime's `intrinsics` and returns `check(value, program, keys)`,
 * the host's guard for binary results (see JsonScan in bjson.ts): true when JSON.stringify would find no
 * toJSON on any object of the value, and no array hole could read an index property of the shared
 * prototypes. Compiled on demand, since most results are too small to be offered in binary form; it
 * reads no globals, so user code that ran before cannot change what it does.
 */
export const GUEST_CHECK_SOURCE = String.raw`(function (k) {
var I = k[0], N = k[1], AP = k[2], OP = k[3];
return function check(v, buf, K) {
  function ix(p) { var a = N(p); for (var i = 0; i < a.length; i++) if ('' + (a[i] >>> 0) === a[i] && a[i] != '4294967295') return 1; return 0; }
  if (ix(AP) || ix(OP) || 'toJSON' in v) return 0;
  // depth-first without recursion and in locals only: calls and closure variables cost more than the
  // check itself; a child without object children (most are) is checked without being stacked
  var P = new I(buf), pc = 1, n = P[0], o = v, so = [], sn = [], d = 0, j, c, m;
  for (;;) {
    if (n > 0) {
      j = P[pc++]; n--; c = o[j < 0 ? K[~j] : j];
      if ('toJSON' in c) return 0;
      m = P[pc++];
      if (m > 0) { so[d] = o; sn[d++] = n; o = c; n = m; }
    } else if (d) { o = so[--d]; n = sn[d]; } else return 1;
  }
};
})`;

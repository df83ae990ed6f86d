import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import vm from 'node:vm';
import { runTransformation, shutdownSandbox } from '../shared/sandbox';
import type { SandboxEvent, SandboxLibrary } from '../shared/sandbox';

// Sandbox benchmark: QuickJS through the public API (worker pool, fresh runtime per invocation) beside
// a node:vm baseline running the same code in this process. Workload as in the sandbox research notes:
// ~1.5 KB RudderStack-like events, a library with helpers, key renames and enrichment.

const LIBRARY_BODY = `
function normalizeEmail(email) { return String(email).trim().toLowerCase().replace(/\\+[^@]*@/, '@'); }
function slugify(text) { return String(text).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''); }
function centsFromAmount(amount) { const n = Number(amount); return Number.isFinite(n) ? Math.round(n * 100) : null; }
`;

const TRANSFORM_BODY = `
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
function transformEvent(event, metadata) {
  if (event.type === 'identify' && !(event.traits && event.traits.email)) return null;
  const out = { ...event };
  if (event.properties) {
    const props = {};
    for (const [key, value] of Object.entries(event.properties)) props[key === 'revenue' ? 'order_revenue' : key.toLowerCase()] = value;
    if (event.properties.revenue !== undefined) props.revenue_cents = centsFromAmount(event.properties.revenue);
    out.properties = props;
  }
  if (event.event) out.event_slug = slugify(event.event);
  if (event.traits && event.traits.email) out.traits = { ...event.traits, email: normalizeEmail(event.traits.email) };
  out.context = { ...event.context, source_id: metadata(event).sourceId };
  out.day_of_week = DAYS[new Date(event.timestamp).getUTCDay()];
  return out;
}
`;

/** Names of the ratios this benchmark prints last, as `name: value` lines. */
export const RATIO_NAMES = {
  cold: 'sandbox cold p50 / node:vm fresh',
  batch: 'sandbox batch 1000 / node:vm warm',
} as const;

const library: SandboxLibrary = { importName: 'myLib', name: 'my lib', code: exportAll(LIBRARY_BODY) };
const transformation = `import { normalizeEmail, slugify, centsFromAmount } from 'myLib';\n${TRANSFORM_BODY.replace('function transformEvent', 'export function transformEvent')}`;

function exportAll(body: string): string {
  return body.replace(/^function /gm, 'export function ');
}

/** Deterministic pseudo-random numbers, so every run measures the same events. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function makeEvents(count: number, seed = 7): SandboxEvent[] {
  const r = rng(seed);
  const events: SandboxEvent[] = [];
  for (let i = 0; i < count; i++) {
    const roll = r();
    const type = roll < 0.7 ? 'track' : roll < 0.85 ? 'identify' : roll < 0.95 ? 'page' : 'screen';
    const messageId = `msg-${seed}-${i}`;
    const message: Record<string, unknown> = {
      type,
      messageId,
      anonymousId: `anon-${Math.floor(r() * 1e9)}`,
      userId: `user-${Math.floor(r() * 1e6)}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 3e10)).toISOString(),
      context: {
        library: { name: 'analytics-node', version: '6.2.0' },
        ip: `203.0.113.${Math.floor(r() * 250)}`,
        locale: 'en-US',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
        page: { path: `/products/${i % 97}`, referrer: 'https://www.example.com/search?q=widgets', title: 'Widgets and gadgets' },
        campaign: { name: 'winter-sale', source: 'newsletter', medium: 'email', term: 'widgets', content: 'hero-banner' },
        device: { id: `dev-${i}`, manufacturer: 'Acme', model: 'Phone 12', type: 'ios' },
        app: { name: 'Shop', version: '4.12.1', build: '4121', namespace: 'com.example.shop' },
        os: { name: 'iOS', version: '17.5.1' },
        screen: { width: 1170, height: 2532, density: 3 },
        network: { wifi: i % 2 === 0, carrier: 'Example Mobile', cellular: i % 2 === 1 },
        traits: {
          plan: 'pro',
          company: { name: 'Example Corp', industry: 'Retail', employees: 250 },
          address: { city: 'Berlin', country: 'DE', postalCode: '10115' },
        },
      },
      integrations: { All: true, Amplitude: { session_id: 1700000000 + i }, 'Google Analytics': false },
      sentAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      originalTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000 - 250).toISOString(),
    };
    if (type === 'track') {
      message.event = ['Order Completed', 'Product Viewed', 'Cart Updated', 'Checkout Started'][i % 4];
      message.properties = {
        Revenue: undefined,
        revenue: Math.round(r() * 50000) / 100,
        Currency: 'USD',
        OrderId: `order-${i}`,
        Products: [
          { sku: `sku-${i % 13}`, name: 'Widget', price: 19.99, quantity: 1 + (i % 3) },
          { sku: `sku-${i % 17}`, name: 'Gadget', price: 5.5, quantity: 2 },
        ],
        CouponCode: i % 5 === 0 ? 'WINTER10' : null,
        ShippingMethod: 'ground',
      };
    } else if (type === 'identify') {
      message.traits = {
        name: `Person ${i}`,
        plan: 'pro',
        createdAt: '2025-03-01T00:00:00.000Z',
        ...(r() < 0.5 ? { email: ` Person.${i}+tag@Example.com ` } : {}),
      };
    } else {
      message.name = `Screen ${i % 11}`;
      message.properties = { Path: `/p/${i}`, Title: 'Some page', Url: `https://www.example.com/p/${i}`, Search: '', Referrer: '' };
    }
    events.push({ message, metadata: { sourceId: `src-${i % 3}`, destinationId: 'dest-1', workspaceId: 'ws-1', messageId } });
  }
  return events;
}

/** A ~70 KB library of many small helpers, generated deterministically. */
function makeHeavyLibrary(targetBytes = 70 * 1024): SandboxLibrary {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const fn = `export function helper${i}(input, options) {
  const value = input == null ? options && options.fallback : input;
  if (typeof value === 'string') return value.trim().toLowerCase().split(/\\s+/).map((w, k) => k === ${i % 5} ? w.toUpperCase() : w).join('_');
  if (Array.isArray(value)) return value.filter((x) => x !== null).map((x) => helper${Math.max(0, i - 1)}(x, options));
  if (typeof value === 'number') return Math.round(value * ${i + 1}) / ${i + 1};
  return { key: 'k${i}', value, nested: { depth: ${i % 7}, tags: ['a${i}', 'b${i}'] } };
}
`;
    parts.push(fn);
    size += fn.length;
  }
  return { importName: 'heavyLib', name: 'heavy lib', code: parts.join('') };
}

// ---- node:vm baseline: the same library and transformation code, as one script in a context ----

const VM_WRAPPER = `
function __run(input) {
  const events = JSON.parse(input);
  const byId = Object.create(null);
  events.forEach((e, i) => { byId[e.message.messageId] = i; });
  const metadata = (e) => { const i = e ? byId[e.messageId] : undefined; return i === undefined ? {} : events[i].metadata || {}; };
  const rows = [];
  for (let i = 0; i < events.length; i++) {
    try { const out = transformEvent(events[i].message, metadata); if (out) rows.push([i, out]); }
    catch (err) { rows.push([i, 0, String(err && err.stack)]); }
  }
  return JSON.stringify({ r: rows });
}`;

function vmRunner(libraryBody: string): (input: string) => string {
  const context = vm.createContext({});
  vm.runInContext(`${libraryBody}\n${TRANSFORM_BODY}\n${VM_WRAPPER}`, context);
  return vm.runInContext('__run', context) as (input: string) => string;
}

// ---- measurement helpers ----

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(samples: number[]): { p50: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90) };
}

const fmt = (n: number, digits = 3) => n.toFixed(digits);
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

async function coldQuickJs(lib: SandboxLibrary, code: string, events: SandboxEvent[], iterations: number, gapMs: number) {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await runTransformation({ code, libraries: [lib], events });
    samples.push(performance.now() - started);
    // Idle time between calls, as between requests: the worker prepares the next sandbox meanwhile.
    if (gapMs > 0) await sleep(gapMs);
  }
  return summary(samples);
}

/**
 * Cold invocations of QuickJS (each after an idle gap, as between requests: the worker prepares the next
 * sandbox meanwhile) and of node:vm (back to back), in alternating blocks, so that both see the same
 * machine: on a shared machine, load that comes and goes would otherwise fall on one side of the ratio.
 */
async function coldBlocks(libraries: SandboxLibrary[], code: string, vmBody: string, events: SandboxEvent[], iterations: number, gapMs: number) {
  const quickjs: number[] = [];
  const vmSamples: number[] = [];
  const input = JSON.stringify(events);
  const block = Math.max(1, Math.ceil(iterations / 8));
  for (let done = 0; done < iterations; done += block) {
    for (let i = done; i < Math.min(iterations, done + block); i++) {
      const started = performance.now();
      await runTransformation({ code, libraries, events });
      quickjs.push(performance.now() - started);
      await sleep(gapMs);
    }
    for (let i = done; i < Math.min(iterations, done + block); i++) {
      const started = performance.now();
      JSON.parse(vmRunner(vmBody)(input));
      vmSamples.push(performance.now() - started);
    }
  }
  return { quickjs: summary(quickjs), vm: summary(vmSamples) };
}

async function throughputQuickJs(batch: SandboxEvent[], budgetMs: number, concurrency = 1): Promise<{ processed: number; ms: number }> {
  let processed = 0;
  const started = performance.now();
  const lane = async () => {
    while (performance.now() - started < budgetMs) {
      await runTransformation({ code: transformation, libraries: [library], events: batch });
      processed += batch.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { processed, ms: performance.now() - started };
}

function throughputVm(run: (input: string) => string, batch: SandboxEvent[], budgetMs: number): { processed: number; ms: number } {
  let processed = 0;
  const started = performance.now();
  while (performance.now() - started < budgetMs) {
    JSON.parse(run(JSON.stringify(batch)));
    processed += batch.length;
  }
  return { processed, ms: performance.now() - started };
}

/** Events/s of QuickJS and of node:vm on `batch`, in alternating rounds (see coldBlocks). */
async function throughputPairs(batch: SandboxEvent[], rounds: number, quickjsMs: number, vmMs: number): Promise<{ quickjs: number; vm: number }> {
  const run = vmRunner(LIBRARY_BODY);
  const q = { processed: 0, ms: 0 };
  const v = { processed: 0, ms: 0 };
  for (let r = 0; r < rounds; r++) {
    const qr = await throughputQuickJs(batch, quickjsMs);
    // The worker's tidy-up after its last batch is not on node:vm's clock.
    await sleep(20);
    const vr = throughputVm(run, batch, vmMs);
    q.processed += qr.processed;
    q.ms += qr.ms;
    v.processed += vr.processed;
    v.ms += vr.ms;
  }
  return { quickjs: q.processed / (q.ms / 1000), vm: v.processed / (v.ms / 1000) };
}

async function main(): Promise<void> {
  const cores = os.availableParallelism();
  const benchStarted = performance.now();
  console.log(`Weir sandbox benchmark — node ${process.version}, ${cores} cores, ${os.cpus()[0]?.model ?? 'cpu'}`);
  const events = makeEvents(1000);
  const eventBytes = JSON.stringify(events.map((e) => e.message)).length / events.length;
  console.log(`workload: ${events.length} events, ${fmt(eventBytes / 1024, 2)} KB JSON each (message only)\n`);

  // Start and warm every worker of the pool before measuring.
  await Promise.all(Array.from({ length: cores }, () => runTransformation({ code: transformation, libraries: [library], events: events.slice(0, 10) })));
  for (let i = 0; i < 200; i++) await runTransformation({ code: transformation, libraries: [library], events: events.slice(0, 1) });

  const one = events.slice(0, 1);
  console.log('Cold invocation: fresh sandbox + module with one small library + 1 event (ms)');
  const { quickjs: cold, vm: coldVmResult } = await coldBlocks([library], transformation, LIBRARY_BODY, one, 400, 2);
  const coldBackToBack = await coldQuickJs(library, transformation, one, 400, 0);
  // Code never seen before (a comment makes each call distinct): compiled every time, without a snapshot.
  const unseenSamples: number[] = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    await runTransformation({ code: `${transformation}\n// call ${i}`, libraries: [library], events: one });
    unseenSamples.push(performance.now() - started);
    await sleep(2);
  }
  const unseen = summary(unseenSamples);
  const coldRatio = cold.p50 / coldVmResult.p50;
  console.log(`  QuickJS, idle worker       p50 ${fmt(cold.p50)}  p90 ${fmt(cold.p90)}   target p50 <= 1 ms, p90 <= 2 ms`);
  console.log(`  QuickJS, back to back      p50 ${fmt(coldBackToBack.p50)}  p90 ${fmt(coldBackToBack.p90)}`);
  console.log(`  QuickJS, code not yet seen p50 ${fmt(unseen.p50)}  p90 ${fmt(unseen.p90)}   (compiled every call, no snapshot)`);
  console.log(`  node:vm fresh context      p50 ${fmt(coldVmResult.p50)}  p90 ${fmt(coldVmResult.p90)}`);
  console.log(`  ratio QuickJS/node:vm (p50, idle worker): ${fmt(coldRatio, 2)}\n`);

  const heavy = makeHeavyLibrary();
  const heavyCode = `import { helper1 } from 'heavyLib';\nimport { normalizeEmail, slugify, centsFromAmount } from 'myLib';\n${TRANSFORM_BODY.replace('function transformEvent', 'export function transformEvent').replace('return out;', 'out.h = helper1(event.type); return out;')}`;
  const heavyBody = `${heavy.code.replace(/^export /gm, '')}\n${LIBRARY_BODY}`;
  console.log(`Cold invocation with a ${fmt(heavy.code.length / 1024, 1)} KB library (ms)`);
  const { quickjs: heavyQ, vm: heavyVm } = await coldBlocks([heavy, library], heavyCode, heavyBody, one, 60, 2);
  // Code never seen before (a comment makes each call distinct): the module is compiled every time, as
  // for the first calls of any code, before a worker has a memory snapshot of it.
  const compiledQjs = [] as number[];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await runTransformation({ code: `${heavyCode}\n// call ${i}`, libraries: [heavy, library], events: one });
    compiledQjs.push(performance.now() - started);
    await sleep(2);
  }
  const compiledQ = summary(compiledQjs);
  console.log(`  QuickJS, idle worker       p50 ${fmt(heavyQ.p50)}  p90 ${fmt(heavyQ.p90)}   target p50 <= 5 ms`);
  console.log(`  QuickJS, code not yet seen p50 ${fmt(compiledQ.p50)}  p90 ${fmt(compiledQ.p90)}   (compiled every call, no snapshot)`);
  console.log(`  node:vm fresh context      p50 ${fmt(heavyVm.p50)}  p90 ${fmt(heavyVm.p90)}`);
  console.log(`  ratio QuickJS/node:vm (p50): ${fmt(heavyQ.p50 / heavyVm.p50, 2)}\n`);

  console.log('Throughput, realistic transformation, one invocation at a time (= one core), events/s');
  console.log('  batch   QuickJS (fresh sandbox per batch)   node:vm (one warm context)   ratio');
  let batchRatio = 0;
  for (const size of [1, 100, 1000]) {
    const batch = events.slice(0, size);
    const { quickjs: q, vm: v } = await throughputPairs(batch, 5, 500, 300);
    console.log(`  ${String(size).padStart(5)}   ${rate(q).padStart(33)}   ${rate(v).padStart(26)}   ${fmt(q / v, 2)}`);
    if (size === 1000) batchRatio = q / v;
  }
  console.log('  target: >= 10,000 events/s per core at batch 1000 (aim 25,000)\n');

  const parallel = await throughputQuickJs(events, 2500, cores);
  console.log(`Throughput at batch 1000 with ${cores} invocations in flight (whole pool): ${rate(parallel.processed / (parallel.ms / 1000))} events/s\n`);

  await shutdownSandbox();
  console.log(`bench finished in ${fmt((performance.now() - benchStarted) / 1000, 1)} s`);
  // Last, one `name: value` a line, for a summary to pick up.
  console.log(`${RATIO_NAMES.cold}: ${fmt(coldRatio, 2)}`);
  console.log(`${RATIO_NAMES.batch}: ${fmt(batchRatio, 2)}`);
}

// Run when started as a script, not when another file imports RATIO_NAMES.
if (require.main === module) {
  main().catch(async (err: unknown) => {
    console.error(err);
    await shutdownSandbox();
    process.exitCode = 1;
  });
}

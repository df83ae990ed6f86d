import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { DEFAULT_DEDUPLICATION_WINDOW_HOURS } from '../shared/domain/ingestion/duplicates';
import type { Live } from './live';
import { envNameOf, isCredentialRef } from './secrets';
import { SCHEMA_FILE } from './spec/load';
import type { State } from './state';

/**
 * `weir export`: the live workspace as files, one per kind (sources.yaml, destinations.yaml…), code in .js
 * files beside them. Defaults are left out, items are sorted by key, so exporting the same workspace twice
 * writes the same bytes. No secret value is written: each credential's value is `{ env: NAME }` (the credential's
 * key), a destination's secret field names its credential, `{ credential: NAME }`, and a secret a destination
 * holds inline (made outside weir) is written as a reference to a credential named after it
 * (AMPLITUDE_PROD_API_KEY), declared beside the others: applying the files sets it from the environment.
 */
export const KIND_FILES: Record<keyof State, string> = {
  credentials: 'credentials.yaml',
  sources: 'sources.yaml',
  destinations: 'destinations.yaml',
  connections: 'connections.yaml',
  transformations: 'transformations.yaml',
  libraries: 'libraries.yaml',
  trackingPlans: 'tracking-plans.yaml',
  alertRules: 'alert-rules.yaml',
};

const byKey = <T extends { key: string }>(items: T[]): T[] => [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
const slugOf = (key: string) =>
  key
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'code';

function codeFiles<T extends { key: string; code: string }>(dir: string, folder: string, items: T[]): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const item of byKey(items)) {
    let name = slugOf(item.key);
    for (let n = 2; used.has(name); n++) name = `${slugOf(item.key)}-${n}`;
    used.add(name);
    names.set(item.key, `${folder}/${name}.js`);
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, `${name}.js`), item.code);
  }
  return names;
}

export function exportFiles(live: Live, dir: string): string[] {
  const { state } = live;
  mkdirSync(dir, { recursive: true });
  const transformationFiles = codeFiles(dir, 'transformations', state.transformations);
  const libraryFiles = codeFiles(dir, 'libraries', state.libraries);
  const secret = (key: string, field: string) => ({ env: envNameOf(key, field) });
  const declared = new Map(state.credentials.map((c) => [c.key, c.isSecret]));
  const destinations = byKey(state.destinations).map((d) => {
    const config = Object.fromEntries(
      Object.entries(d.config).map(([field, value]) => {
        if (!d.secretFields.includes(field) || isCredentialRef(value)) return [field, value];
        const name = envNameOf(d.key, field);
        if (!declared.has(name)) declared.set(name, true);
        return [field, { credential: name }];
      }),
    );
    return { key: d.key, type: d.type, ...(!d.enabled && { enabled: false }), config, ...(d.transformation && { transformation: d.transformation }) };
  });
  const content: Record<keyof State, unknown[]> = {
    credentials: [...declared]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, isSecret]) => ({ key, value: { env: key }, ...(!isSecret && { secret: false }) })),
    sources: byKey(state.sources).map((s) => ({
      key: s.key,
      type: s.type,
      ...(!s.enabled && { enabled: false }),
      ...(s.inboundLimit !== null && { inboundLimit: s.inboundLimit }),
      ...(s.ingestShards !== 1 && { ingestShards: s.ingestShards }),
      ...(s.deduplicationWindowHours !== DEFAULT_DEDUPLICATION_WINDOW_HOURS && { deduplicationWindowHours: s.deduplicationWindowHours }),
      ...(s.trackingPlan && {
        trackingPlan: {
          plan: s.trackingPlan.plan,
          mode: s.trackingPlan.mode,
          unplannedEvents: s.trackingPlan.unplannedEvents,
          ...(s.trackingPlan.version !== live.planVersions.get(s.trackingPlan.plan) && { version: s.trackingPlan.version }),
        },
      }),
    })),
    destinations,
    connections: [...state.connections]
      .sort((a, b) => `${a.source}\n${a.destination}`.localeCompare(`${b.source}\n${b.destination}`))
      .map((c) => ({ source: c.source, destination: c.destination, ...(c.rules.length > 0 && { rules: c.rules }) })),
    transformations: byKey(state.transformations).map((t) => ({
      key: t.key,
      ...(t.name !== t.key && { name: t.name }),
      ...(t.description && { description: t.description }),
      code: transformationFiles.get(t.key),
    })),
    libraries: byKey(state.libraries).map((l) => ({
      key: l.key,
      ...(l.name !== l.key && { name: l.name }),
      ...(l.description && { description: l.description }),
      code: libraryFiles.get(l.key),
    })),
    trackingPlans: byKey(state.trackingPlans).map((p) => ({ key: p.key, ...(p.description && { description: p.description }), specs: p.specs ?? [] })),
    alertRules: byKey(state.alertRules).map((r) => ({
      key: r.key,
      ...(!r.enabled && { enabled: false }),
      condition: r.condition,
      channel: r.channel.type === 'slack' ? { ...r.channel, webhookUrl: secret(r.key, 'webhookUrl') } : r.channel,
    })),
  };
  const header = `# yaml-language-server: $schema=${path.relative(dir, SCHEMA_FILE).split(path.sep).join('/')}\n`;
  const written: string[] = [];
  for (const [kind, file] of Object.entries(KIND_FILES) as [keyof State, string][]) {
    const target = path.join(dir, file);
    if (content[kind].length === 0) {
      rmSync(target, { force: true });
      continue;
    }
    writeFileSync(target, header + stringify({ [kind]: content[kind] }, { lineWidth: 0 }));
    written.push(file);
  }
  return [...written, ...transformationFiles.values(), ...libraryFiles.values()];
}

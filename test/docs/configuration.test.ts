import { readFileSync } from 'node:fs';
import path from 'node:path';
import { markdownFiles } from '../support/markdown-links';
import { statedDefaults, tableDefaults, tableValues, variablesReadIn } from '../support/env-docs';

const ROOT = path.join(__dirname, '../..');
const TABLE = path.join(ROOT, 'docs/reference/environment-variables.md');
const PERFORMANCE = path.join(ROOT, 'docs/performance.md');
const OTHER_DOCS = [path.join(ROOT, 'README.md'), path.join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(path.join(ROOT, 'docs'))].filter(
  (file) => file !== TABLE,
);

/**
 * The service's code is shared/, functions/ and infra/. The bench (bench/) is a program of its own whose variables
 * only change what it measures: they are in docs/performance.md's table, checked below, not in the configuration.
 */
const table = tableDefaults(readFileSync(TABLE, 'utf8'));

describe('the configuration table', () => {
  it('lists every environment variable the code reads', () => {
    const read = variablesReadIn(['shared', 'functions', 'infra', 'cli'].map((dir) => path.join(ROOT, dir)));
    const missing = [...read].filter(([name]) => !table.has(name)).map(([name, file]) => `${name} (${path.relative(ROOT, file)})`);
    expect(missing).toEqual([]);
    expect(read.size).toBeGreaterThan(30);
  });

  it("lists every variable the bench reads in the performance page's table", () => {
    const bench = tableDefaults(readFileSync(PERFORMANCE, 'utf8'));
    const read = variablesReadIn([path.join(ROOT, 'bench')]);
    const missing = [...read.keys()].filter((name) => !bench.has(name) && !table.has(name));
    expect(missing).toEqual([]);
  });

  it('is contradicted by no other document about a default', () => {
    const contradictions = OTHER_DOCS.flatMap(statedDefaults)
      .filter(({ variable }) => table.has(variable))
      .filter(({ variable, value }) => {
        const values = tableValues(variable, table.get(variable)!);
        return values.length > 0 && !values.includes(value);
      })
      .map(({ file, line, text }) => `${path.relative(ROOT, file)}:${line} ${text}`);
    expect(contradictions).toEqual([]);
  });

  it('catches a document that states another default', () => {
    const stated = statedDefaults(path.join(__dirname, 'fixtures/other-default.md'));
    expect(stated.map(({ variable, value, line }) => ({ variable, value, line }))).toEqual([
      { variable: 'WEIR_DELIVERY_LEASE_MS', value: 90_000, line: 3 },
      { variable: 'WEIR_ARCHIVE_RETENTION_DAYS', value: 7, line: 4 },
      { variable: 'WEIR_DELIVERY_LANE_WAIT_MS', value: 250, line: 5 },
    ]);
    const wrong = stated.filter(({ variable, value }) => !tableValues(variable, table.get(variable)!).includes(value));
    expect(wrong.map(({ variable }) => variable)).toEqual(['WEIR_DELIVERY_LEASE_MS']);
  });
});

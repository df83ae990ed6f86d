import { UserCodeService } from '../../shared/domain/transformations/user-code-service';
import { PublishRefusedError } from '../../shared/domain/transformations/publish';
import { StaleHeadError } from '../../shared/domain/errors';
import type { CatalogRepository } from '../../shared/domain/catalog/ports';
import type { UserCodeRepository } from '../../shared/domain/transformations/ports';
import type { UserCodeHead } from '../../shared/domain/transformations/schemas';

/** The transformation use cases against in-memory fakes of their repository ports. */
const head = (versionId: string, code = 'export function transformEvent(e) { return e; }'): UserCodeHead => ({
  id: 't1',
  versionId,
  workspaceId: 'w1',
  name: 'Tagger',
  description: '',
  code,
  language: 'javascript',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  publishedVersionId: null,
  imports: [],
  codeVersion: '1',
});

const unused = async (): Promise<never> => {
  throw new Error('not used by these tests');
};

function fakes(heads: UserCodeHead[], appendFailures: number) {
  const appended: { expectedVersionId: string; code: string }[] = [];
  const created: string[] = [];
  let reads = 0;
  const code: Omit<UserCodeRepository, 'findRevision' | 'publish'> = {
    listHeads: unused,
    getRevision: unused,
    listRevisions: unused,
    remove: unused,
    getHead: async () => heads[Math.min(reads++, heads.length - 1)],
    appendRevision: async (_kind, next, _revision, expectedVersionId) => {
      appended.push({ expectedVersionId, code: next.code });
      if (appended.length <= appendFailures) throw new StaleHeadError('transformation changed concurrently; try again');
    },
    create: async (_kind, next) => void created.push(next.id),
  };
  const catalog: Pick<CatalogRepository, 'listDestinations'> = { listDestinations: async () => [] };
  return { code, catalog, appended, created };
}

const passing = { assertPublishable: async () => undefined };
const refusing = {
  assertPublishable: async (): Promise<void> => {
    throw new PublishRefusedError('transformation Tagger failed its tests', { transformations: [], libraries: [] });
  },
};

test('an update that lost the race to another reads the new head and builds on it', async () => {
  const { code, catalog, appended } = fakes([head('v1'), head('v2')], 1);
  const updated = await new UserCodeService(code, catalog, passing).updateTransformation('w1', 't1', {
    code: 'export function transformEvent(e) { return null; }',
    publish: false,
  });
  expect(appended.map((a) => a.expectedVersionId)).toEqual(['v1', 'v2']);
  expect(updated.code).toBe('export function transformEvent(e) { return null; }');
});

test('an update that keeps losing gives up with the stale-head conflict', async () => {
  const { code, catalog, appended } = fakes([head('v1')], Number.MAX_SAFE_INTEGER);
  await expect(new UserCodeService(code, catalog, passing).updateTransformation('w1', 't1', { description: 'x', publish: false })).rejects.toBeInstanceOf(
    StaleHeadError,
  );
  expect(appended.length).toBeGreaterThan(1);
});

test('a create whose publish tests fail saves nothing', async () => {
  const { code, catalog, created } = fakes([], 0);
  const service = new UserCodeService(code, catalog, refusing);
  await expect(
    service.createTransformation('w1', { name: 'Tagger', code: 'export function transformEvent(e) { throw 1; }', publish: true } as never),
  ).rejects.toBeInstanceOf(PublishRefusedError);
  expect(created).toEqual([]);
});

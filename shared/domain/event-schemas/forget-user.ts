import type { CatalogRepository } from '../../persistence/catalog-repository';
import type { EventSchemaRepository } from '../../persistence/event-schema-repository';
import { normaliseUserId } from '../regulations/suppression-index';
import { Sketch } from './sketch';

const ATTEMPTS = 10;

/**
 * A deletion regulation reaches Weir's own copies too: the user's sampled events, and the frequent-value
 * candidates equal to one of their identifiers, leave every event model and version of the workspace. Each
 * sketch is rewritten under its revision check (again on a conflict with capture), so nothing capture adds
 * meanwhile is lost; idempotent, so a replayed regulation changes nothing more. Returns the sketches changed.
 */
export async function forgetUser(
  repository: EventSchemaRepository,
  catalog: Pick<CatalogRepository, 'listSources'>,
  workspaceId: string,
  attributes: Record<string, string>,
): Promise<number> {
  const userId = normaliseUserId(attributes.userId);
  if (userId === undefined) return 0;
  const identifiers = new Set(
    Object.values(attributes)
      .map((value) => value.trim())
      .filter(Boolean),
  );
  identifiers.add(userId);
  let changed = 0;
  for (const source of await catalog.listSources(workspaceId)) {
    for (const found of await repository.sketchesOf(workspaceId, source.id)) {
      let stored: typeof found | undefined = found;
      for (let attempt = 1; stored; attempt++) {
        const sketch = Sketch.decode(stored.data);
        if (!sketch.forget(userId, identifiers)) break;
        if (await repository.replaceSketch(found.key, stored.rev, sketch.encode())) {
          changed++;
          break;
        }
        if (attempt >= ATTEMPTS) throw new Error(`sketch ${found.key.sk} kept changing while a user was being forgotten`);
        const again = await repository.sketchAt(found.key);
        stored = again && { ...again, key: found.key };
      }
    }
  }
  return changed;
}

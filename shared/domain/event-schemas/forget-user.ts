import type { CatalogRepository } from '../catalog/ports';
import { normaliseUserId } from '../regulations/suppression-index';
import type { SketchRewriteRepository } from './ports';
import type { StoredSketch } from './records';
import { OpenSketch } from './sketch-layout';

const ATTEMPTS = 10;

/**
 * A deletion regulation reaches Weir's own copies too: the user's sampled events, and the frequent-value
 * candidates equal to one of their identifiers, leave every event model and version of the workspace, and
 * so do the journals that still hold the values of recent events. Each sketch is rewritten whole under its
 * revision check (again on a conflict with capture), so nothing capture adds meanwhile is lost; idempotent,
 * so a replayed regulation changes nothing more. Returns the sketches changed.
 */
export async function forgetUser(
  repository: SketchRewriteRepository,
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
      let stored: StoredSketch = found;
      for (let attempt = 1; ; attempt++) {
        const open = OpenSketch.of(stored.head, stored.bases);
        if (open) {
          // A journal holds the values of the events it records: it goes too, folded into a new base; and the
          // base it started from is deleted, unless a capture has folded into that slot since.
          if (!open.sketch.forget(userId, identifiers) && !open.hasJournal) break;
          const left = open.named;
          const write = open.fold();
          if ((await repository.replaceSketch(found.key, open.rev, write)) && !write.retry) {
            if (left) await repository.dropBase(found.key, left.slot, left.tag);
            changed++;
            break;
          }
        }
        if (attempt >= ATTEMPTS) throw new Error(`sketch ${found.key.sk} kept changing while a user was being forgotten`);
        stored = await repository.sketchAt(found.key);
      }
    }
  }
  return changed;
}

import { useState } from 'preact/hooks';
import type { Revision } from '../../../shared/contract/client-types';
import { api } from '../api';
import { diffLines } from '../diff';
import { ErrorBox, Section, useLoad, when } from '../ui';

/** The last 100 revisions of a transformation or a library, newest first. */
async function revisionsOf(kind: 'transformation' | 'library', id: string): Promise<Revision[]> {
  const input = { params: { id }, query: { count: 100, orderBy: 'DESC' } };
  if (kind === 'transformation') return (await api.call('GET /transformations/{id}/versions', input)).TransformationVersions;
  return (await api.call('GET /libraries/{id}/versions', input)).libraryVersions;
}

/** Every revision, newest first (read again when `latest` changes), and the line diff between any two of them. */
export function Revisions({ kind, id, latest, published }: { kind: 'transformation' | 'library'; id: string; latest: string; published?: string | null }) {
  const list = useLoad(() => revisionsOf(kind, id), [kind, id, latest]);
  const revisions = list.data ?? [];
  const [from, setFrom] = useState<string | undefined>(undefined);
  const [to, setTo] = useState<string | undefined>(undefined);
  const older = revisions.find((r) => r.versionId === from) ?? revisions[1];
  const newer = revisions.find((r) => r.versionId === to) ?? revisions[0];
  // Numbered from the first, dated, the published one marked: a revision's id says nothing to a reader.
  const label = (r: Revision, i: number) => `#${revisions.length - i} · ${when(r.createdAt)}${r.versionId === published ? ' · published' : ''}`;
  return (
    <Section title="Revisions">
      <ErrorBox error={list.error} />
      <ul aria-label="Revisions">
        {revisions.map((r, i) => (
          <li>{label(r, i)}</li>
        ))}
      </ul>
      {revisions.length > 1 && older && newer && (
        <>
          <div class="row">
            <label for="diff-from">Compare</label>
            <select id="diff-from" value={older.versionId} onChange={(e) => setFrom(e.currentTarget.value)}>
              {revisions.map((r, i) => (
                <option value={r.versionId}>{label(r, i)}</option>
              ))}
            </select>
            <label for="diff-to">with</label>
            <select id="diff-to" value={newer.versionId} onChange={(e) => setTo(e.currentTarget.value)}>
              {revisions.map((r, i) => (
                <option value={r.versionId}>{label(r, i)}</option>
              ))}
            </select>
          </div>
          <div class="diff" role="region" aria-label="Differences between the two revisions" tabIndex={0}>
            {diffLines(older.code, newer.code).map((line) =>
              line.kind === 'added' ? (
                <ins>+ {line.text}</ins>
              ) : line.kind === 'removed' ? (
                <del>- {line.text}</del>
              ) : (
                <span>
                  {'  '}
                  {line.text}
                </span>
              ),
            )}
          </div>
        </>
      )}
    </Section>
  );
}

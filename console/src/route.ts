import { useEffect } from 'preact/hooks';

/**
 * What the hash route names after its page: `#/delivery/<destinationId>/failures` → [destinationId, 'failures'].
 * A page reads it once, when it opens, to start on what a link pointed at.
 */
export const routeArgs = (): string[] => location.hash.replace(/^#\/?/, '').split('/').slice(1).map(decodeURIComponent);

/** A link to a page, and to what on it: `hrefOf('sources', id)`. */
export const hrefOf = (page: string, ...args: string[]): string => `#/${[page, ...args.map(encodeURIComponent)].join('/')}`;

/**
 * When the route names `part` (`#/delivery/<id>/failures`), brings the element of that id into view once `ready`
 * finds it loaded (tried for up to 10 s: the page reads its data first).
 */
export function useScrollToRoutePart(part: string, elementId: string, ready: (element: HTMLElement) => boolean): void {
  useEffect(() => {
    if (!routeArgs().includes(part)) return;
    const started = Date.now();
    const timer = setInterval(() => {
      const element = document.getElementById(elementId);
      if (element && ready(element)) element.scrollIntoView({ block: 'start' });
      if ((element && ready(element)) || Date.now() - started > 10_000) clearInterval(timer);
    }, 200);
    return () => clearInterval(timer);
  }, []);
}

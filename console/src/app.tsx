import { Alerts } from './pages/alerts';
import { Delivery } from './pages/delivery';
import { Overview } from './pages/overview';
import { useEffect, useState } from 'preact/hooks';
import { session } from './session';
import { timeZoneLabel } from './ui';
import { SignIn } from './pages/sign-in';
import { Connections } from './pages/connections';
import { Credentials } from './pages/credentials';
import { Destinations } from './pages/destinations';
import { Regulations } from './pages/regulations';
import { Schemas } from './pages/schemas';
import { Sources } from './pages/sources';
import { TrackingPlans } from './pages/tracking-plans';
import { Transformations } from './pages/transformations';

/** Pages by their hash route (`#/sources`): the hash never leaves the browser, and never carries the token. */
const PAGES: { path: string; title: string; render: () => preact.JSX.Element }[] = [
  { path: 'overview', title: 'Overview', render: () => <Overview /> },
  { path: 'sources', title: 'Sources', render: () => <Sources /> },
  { path: 'destinations', title: 'Destinations', render: () => <Destinations /> },
  { path: 'delivery', title: 'Delivery', render: () => <Delivery /> },
  { path: 'alerts', title: 'Alerts', render: () => <Alerts /> },
  { path: 'connections', title: 'Connections', render: () => <Connections /> },
  { path: 'transformations', title: 'Transformations', render: () => <Transformations /> },
  { path: 'regulations', title: 'Regulations', render: () => <Regulations /> },
  { path: 'schemas', title: 'Event schemas', render: () => <Schemas /> },
  { path: 'tracking-plans', title: 'Tracking plans', render: () => <TrackingPlans /> },
  { path: 'credentials', title: 'Credentials', render: () => <Credentials /> },
];

const current = () => location.hash.replace(/^#\/?/, '').split('/')[0] || PAGES[0]!.path;

export function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.token()));
  const [path, setPath] = useState(current());
  // Below 900 px the menu folds behind a button; choosing a page folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    const onHash = () => {
      setPath(current());
      setMenuOpen(false);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const page = PAGES.find((p) => p.path === path) ?? PAGES[0]!;
  document.title = `${page.title} · Weir Console`;
  return (
    <div class="shell">
      <header>
        <span class="brand">Weir</span>
        <button type="button" class="menu-button secondary" aria-expanded={menuOpen} aria-controls="pages-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="pages-nav" aria-label="Pages" class={menuOpen ? 'open' : undefined}>
          {PAGES.map((p) => (
            <a href={`#/${p.path}`} aria-current={p.path === page.path ? 'page' : undefined}>
              {p.title}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="link"
          onClick={() => {
            session.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <h1>{page.title}</h1>
        <p class="hint zone">Times are shown in {timeZoneLabel()}.</p>
        {page.render()}
      </main>
    </div>
  );
}

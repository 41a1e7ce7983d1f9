/** The shell: navigation, tenant picker, the runtime banner, and the page of the current path. */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { api } from './api';
import { Link, useLocation } from './router';
import { startRuntimeProbe, useRuntimeState } from './runtime-status';
import { SearchPage } from './search/SearchPage';
import { ChooseTenant, TenantPicker, useTenantId } from './tenant';
import { UploadPage } from './upload/UploadPage';

// sigma and graphology load with the explorer, not with the first page.
const GraphPage = lazy(() => import('./graph/GraphPage'));
// The chat, the wiki and the jobs load when their page opens, keeping the first page small.
const ChatPage = lazy(() => import('./chat/ChatPage'));
const WikiPage = lazy(() => import('./wiki/WikiPage'));
const JobsPage = lazy(() => import('./jobs/JobsPage'));

const PAGES = [
  { path: '/search', label: 'Search' },
  { path: '/chat', label: 'Chat' },
  { path: '/upload', label: 'Upload' },
  { path: '/graph', label: 'Knowledge graph' },
  { path: '/wiki', label: 'Wiki' },
  { path: '/jobs', label: 'Jobs' },
] as const;

function RuntimeBanner() {
  const state = useRuntimeState();
  if (state !== 'down') return null;
  return (
    <div className="banner" role="alert">
      <strong>The runtime is not answering.</strong> Search, chat, uploads and the graph are paused; this page
      reconnects by itself as soon as it is back.
    </div>
  );
}

function NotFound() {
  return (
    <section className="empty-state">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        <Link href="/search">Go to search</Link>
      </p>
    </section>
  );
}

export function App() {
  const location = useLocation();
  const tenantId = useTenantId();
  const runtime = useRuntimeState();
  const page = location.pathname === '/' ? '/search' : location.pathname.replace(/\/+$/, '');
  const withTenant = (path: string) => (tenantId ? `${path}?tenant=${encodeURIComponent(tenantId)}` : path);

  useEffect(() => {
    startRuntimeProbe(() =>
      api.health().then(
        () => true,
        () => false,
      ),
    );
  }, []);

  // After a navigation, focus goes to the new page's heading, so keyboard and screen reader users land on it.
  const firstPage = useRef(true);
  useEffect(() => {
    void page;
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [page]);

  let content: React.ReactNode;
  if (!PAGES.some((p) => p.path === page)) content = <NotFound />;
  else if (!tenantId) content = <ChooseTenant />;
  else if (page === '/search') content = <SearchPage key={tenantId} tenantId={tenantId} />;
  else if (page === '/upload') content = <UploadPage key={tenantId} tenantId={tenantId} />;
  else if (page === '/graph')
    content = (
      <Suspense fallback={<p className="loading">Loading the graph explorer…</p>}>
        <GraphPage key={tenantId} tenantId={tenantId} />
      </Suspense>
    );
  else {
    const Page = page === '/chat' ? ChatPage : page === '/wiki' ? WikiPage : JobsPage;
    content = (
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <Page key={tenantId} tenantId={tenantId} />
      </Suspense>
    );
  }

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href={withTenant('/search')} className="brand" aria-label="Tessera home">
          <span className="brand-mark" aria-hidden="true" />
          Tessera
        </Link>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <Link href={withTenant(p.path)} aria-current={page === p.path ? 'page' : undefined}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <TenantPicker tenantId={tenantId} />
        <span className={`runtime-dot runtime-${runtime}`} role="status">
          <span className="visually-hidden">Runtime </span>
          {runtime === 'up' ? 'online' : runtime === 'down' ? 'offline' : 'connecting'}
        </span>
      </header>
      <RuntimeBanner />
      <main id="main" tabIndex={-1}>
        {content}
      </main>
    </>
  );
}

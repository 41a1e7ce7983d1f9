/**
 * The tenant's wiki (`/wiki/*` of the runtime): every page, newest first, a search over them, and a page
 * with its Markdown (`[[slug]]` links open the linked page), entities, sources and links. The open page is
 * in the URL (`?page=<slug>`).
 */
import type { Wiki } from '@tessera/api';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { api } from '../api';
import { Link, useLocation } from '../router';
import { useRecoveries } from '../runtime-status';

const pageHref = (tenantId: string, slug: string) =>
  `/wiki?tenant=${encodeURIComponent(tenantId)}&page=${encodeURIComponent(slug)}`;

/** Inline Markdown: `[[slug]]` links, `code`, **strong**; everything else is text (never HTML). */
function inline(text: string, tenantId: string): ReactNode[] {
  const parts: ReactNode[] = [];
  const pattern = /\[\[([^\]|]+)(?:\|([^\]]+))?\]\]|`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    const key = `${match.index}`;
    if (match[1] !== undefined) {
      parts.push(
        <Link key={key} href={pageHref(tenantId, match[1].trim())}>
          {(match[2] ?? match[1]).trim()}
        </Link>,
      );
    } else if (match[3] !== undefined) parts.push(<code key={key}>{match[3]}</code>);
    else parts.push(<strong key={key}>{match[4]}</strong>);
    last = pattern.lastIndex;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** Block Markdown: headings (one level below the page's title), lists, fenced code, paragraphs. */
export function Markdown({ text, tenantId }: { text: string; tenantId: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const key = blocks.length;
    if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      blocks.push(
        <pre key={key}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // The page's own title is the view's heading; Markdown headings sit below it.
      const level = Math.min(6, heading[1]!.length + 1);
      const Tag = `h${level}` as 'h2';
      blocks.push(<Tag key={key}>{inline(heading[2]!, tenantId)}</Tag>);
      i++;
      continue;
    }
    if (/^\s*[-*]\s+/.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*[-*]\s+/.test(lines[i]!); i++)
        items.push(lines[i]!.replace(/^\s*[-*]\s+/, ''));
      blocks.push(
        <ul key={key}>
          {items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: list items keep their order
            <li key={index}>{inline(item, tenantId)}</li>
          ))}
        </ul>,
      );
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const paragraph: string[] = [];
    for (; i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,6}\s|```|\s*[-*]\s)/.test(lines[i]!); i++)
      paragraph.push(lines[i]!);
    blocks.push(<p key={key}>{inline(paragraph.join(' '), tenantId)}</p>);
  }
  return <div className="wiki-content">{blocks}</div>;
}

/** A snippet without its Markdown marks. */
const plain = (snippet: string) =>
  snippet
    .replace(/\[\[([^\]|]+)(?:\|[^\]]*)?\]\]/g, '$1')
    .replace(/(^|\s)#{1,6}\s/g, '$1')
    .replace(/[*`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'done'; value: T };

export default function WikiView({ tenantId }: { tenantId: string }) {
  const id = useId();
  const location = useLocation();
  const recoveries = useRecoveries();
  const slug = location.searchParams.get('page') ?? '';
  const [index, setIndex] = useState<Loaded<Wiki.WikiIndex>>({ state: 'loading' });
  const [page, setPage] = useState<Loaded<Wiki.WikiPage> | undefined>();
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Loaded<Wiki.SearchResult> | undefined>();

  useEffect(() => {
    void recoveries;
    let live = true;
    api.wikiIndex(tenantId).then(
      (value) => live && setIndex({ state: 'done', value }),
      (error: Error) => live && setIndex({ state: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [tenantId, recoveries]);

  useEffect(() => {
    void recoveries;
    if (!slug) {
      setPage(undefined);
      return;
    }
    let live = true;
    setPage({ state: 'loading' });
    api.wikiPage(tenantId, slug).then(
      (value) => live && setPage({ state: 'done', value }),
      (error: Error) => live && setPage({ state: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [tenantId, slug, recoveries]);

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    const text = query.trim();
    if (!text) {
      setFound(undefined);
      return;
    }
    setFound({ state: 'loading' });
    api.wikiSearch(tenantId, text).then(
      (value) => setFound({ state: 'done', value }),
      (error: Error) => setFound({ state: 'error', message: error.message }),
    );
  };

  const listed =
    found?.state === 'done'
      ? found.value.results.map((r) => ({
          slug: r.slug,
          title: r.title,
          kind: r.kind,
          note: plain(r.snippet),
        }))
      : index.state === 'done'
        ? index.value.pages.map((p) => ({
            slug: p.slug,
            title: p.title,
            kind: p.kind,
            note: new Date(p.updated_at).toLocaleDateString(),
          }))
        : [];

  return (
    <section aria-labelledby={`${id}-title`} className="page">
      <h1 id={`${id}-title`} tabIndex={-1}>
        Wiki
      </h1>
      <div className="wiki-layout">
        <aside className="wiki-side" aria-label="Wiki pages">
          <search>
            <form className="inline" onSubmit={search}>
              <label htmlFor={`${id}-q`} className="visually-hidden">
                Search the wiki
              </label>
              <input
                id={`${id}-q`}
                type="search"
                value={query}
                placeholder="Search the wiki"
                onChange={(event) => {
                  setQuery(event.target.value);
                  if (!event.target.value) setFound(undefined);
                }}
              />
              <button type="submit">Search</button>
            </form>
          </search>
          <p className="muted" aria-live="polite">
            {found?.state === 'done'
              ? `${found.value.count} ${found.value.count === 1 ? 'page matches' : 'pages match'}`
              : found?.state === 'loading'
                ? 'Searching…'
                : index.state === 'done'
                  ? `${index.value.total_count} ${index.value.total_count === 1 ? 'page' : 'pages'}`
                  : index.state === 'loading'
                    ? 'Loading…'
                    : ''}
          </p>
          {index.state === 'error' || found?.state === 'error' ? (
            <p className="error" role="alert">
              {index.state === 'error' ? index.message : found?.state === 'error' ? found.message : ''}
            </p>
          ) : null}
          {index.state === 'done' && index.value.total_count === 0 ? (
            <p className="hint">
              No pages yet. Agents’ answers are filed here, and scheduled jobs can write to it.
            </p>
          ) : null}
          <ul className="wiki-list">
            {listed.map((entry) => (
              <li key={entry.slug}>
                <Link
                  href={pageHref(tenantId, entry.slug)}
                  aria-current={entry.slug === slug ? 'page' : undefined}
                >
                  {entry.title}
                </Link>{' '}
                <span className={`badge badge-${entry.kind}`}>{entry.kind}</span>
                <span className="wiki-note muted">{entry.note}</span>
              </li>
            ))}
          </ul>
        </aside>
        <article className="wiki-page card" aria-live="polite">
          {!page ? <p className="muted">Pick a page to read it.</p> : null}
          {page?.state === 'loading' ? <p className="muted">Loading…</p> : null}
          {page?.state === 'error' ? (
            <p className="error" role="alert">
              {page.message}
            </p>
          ) : null}
          {page?.state === 'done' ? (
            <>
              <h2 className="wiki-title">{page.value.title}</h2>
              <p className="hit-meta">
                <span className={`badge badge-${page.value.kind}`}>{page.value.kind}</span>
                <span>version {page.value.version}</span>
                <span>updated {new Date(page.value.updated_at).toLocaleString()}</span>
                {page.value.agent_name ? <span>by {page.value.agent_name}</span> : null}
              </p>
              <Markdown text={page.value.content.replace(/^# .*\n?/, '')} tenantId={tenantId} />
              {page.value.sources.length > 0 ? (
                <p className="chat-sources">
                  Sources:{' '}
                  {page.value.sources.map((source) => (
                    <cite key={source}>{source} </cite>
                  ))}
                </p>
              ) : null}
              {page.value.cross_refs.length > 0 ? (
                <section aria-labelledby={`${id}-links`}>
                  <h3 id={`${id}-links`}>Linked pages</h3>
                  <ul className="wiki-links">
                    {page.value.cross_refs.map((ref) => (
                      <li key={ref}>
                        <Link href={pageHref(tenantId, ref)}>{ref}</Link>
                      </li>
                    ))}
                  </ul>
                </section>
              ) : null}
            </>
          ) : null}
        </article>
      </div>
    </section>
  );
}

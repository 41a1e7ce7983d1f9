/**
 * What the wiki's pages say, as pure functions: the session page of a save, a topic page gaining a session
 * and cross-references, the index page, snippets and lint.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Wiki } from '@tessera/api';
import { answerText } from './answer';
import type { StoredPage } from './store';

export const INDEX_SLUG = 'index';
export const STALE_MS = 30 * 24 * 3600 * 1000;
export const EMPTY_CHARS = 50;

export interface Entity {
  name: string;
  slug: string;
  label?: string;
}

/** The entities of a save: names (or `{text|name, label}`) with a non-empty node_id, first of each slug. */
export function entitiesOf(refs: readonly unknown[]): Entity[] {
  const seen = new Map<string, Entity>();
  for (const ref of refs) {
    let name: string | undefined;
    let label: string | undefined;
    if (typeof ref === 'string') name = ref;
    else if (ref && typeof ref === 'object') {
      const value = ref as Record<string, unknown>;
      name =
        typeof value.text === 'string' ? value.text : typeof value.name === 'string' ? value.name : undefined;
      label = typeof value.label === 'string' ? value.label : undefined;
    }
    name = name?.trim();
    if (!name) continue;
    const slug = Wiki.topicSlug(name);
    if (slug && slug !== INDEX_SLUG && !slug.startsWith('session_') && !seen.has(slug)) {
      seen.set(slug, { name, slug, ...(label ? { label } : {}) });
    }
  }
  return [...seen.values()];
}

/** Document ids the response names as its sources. */
export function sourcesOf(response: Record<string, unknown>): string[] {
  const sources = response.sources ?? (response.result as Record<string, unknown> | undefined)?.sources;
  return Array.isArray(sources)
    ? [...new Set(sources.filter((s): s is string => typeof s === 'string'))]
    : [];
}

const stamp = (ms: number) => new Date(ms).toISOString();

/** A session's slug: its time and a hash of its query with `runId` (the same for one run), else random bytes. */
export function sessionSlug(now: number, query: string, runId?: string): string {
  const time = stamp(now)
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  const hash = createHash('sha1')
    .update(query)
    .update(runId ?? randomBytes(8))
    .digest('hex')
    .slice(0, 8);
  return `session_${time}_${hash}`;
}

const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Markdown moved two heading levels down, below the page's `## Answer` (fenced code left as it is). */
function underAnswer(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      return !fenced && /^#{1,4} /.test(line) ? `##${line}` : line;
    })
    .join('\n');
}

export function sessionPage(input: {
  slug: string;
  query: string;
  response: Record<string, unknown>;
  agentName: string;
  entities: Entity[];
  now: number;
}): StoredPage {
  const { slug, query, response, agentName, entities, now } = input;
  const title = oneLine(query, 100);
  const sources = sourcesOf(response);
  const parts = [
    `# ${title}`,
    `**Agent:** \`${agentName}\` · **Saved:** ${stamp(now)}`,
    `## Question\n\n${query}`,
    `## Answer\n\n${underAnswer(answerText(response))}`,
  ];
  if (entities.length > 0) {
    parts.push(
      `## Entities\n\n${entities.map((e) => `- [[${e.slug}]] ${e.name}${e.label ? ` (${e.label})` : ''}`).join('\n')}`,
    );
  }
  if (sources.length > 0) parts.push(`## Sources\n\n${sources.map((s) => `- ${s}`).join('\n')}`);
  return {
    slug,
    title,
    kind: 'session',
    content: `${parts.join('\n\n')}\n`,
    entities: entities.map((e) => e.name),
    agent_name: agentName,
    query,
    sources,
    cross_refs: entities.map((e) => e.slug),
    created_at: now,
    updated_at: now,
    version: 1,
  };
}

const LINE = /^- \[\[([^\]]+)\]\] ?(.*)$/;

/** `- [[slug]] text` lines of a section of a page's content, in order. */
function linkLines(content: string, heading: string): Map<string, string> {
  const lines = new Map<string, string>();
  let inside = false;
  for (const line of content.split('\n')) {
    if (line.startsWith('## ')) inside = line === `## ${heading}`;
    else if (inside) {
      const match = LINE.exec(line);
      if (match) lines.set(match[1]!, match[2]!);
    }
  }
  return lines;
}

const section = (heading: string, lines: Map<string, string>) =>
  `## ${heading}\n\n${lines.size === 0 ? '(none yet)' : [...lines].map(([slug, text]) => `- [[${slug}]] ${text}`.trimEnd()).join('\n')}`;

/** The topic page of `entity` after the session `session` mentioning it (and `related` topics) was saved. */
export function topicAfterSession(
  current: StoredPage | undefined,
  entity: Entity,
  session: StoredPage,
  related: readonly Entity[],
  now: number,
): StoredPage {
  const title = current?.title ?? entity.name;
  const sessions = linkLines(current?.content ?? '', 'Sessions');
  sessions.set(session.slug, oneLine(session.query ?? session.title, 120));
  const topics = linkLines(current?.content ?? '', 'Related topics');
  for (const other of related)
    if (other.slug !== entity.slug && !topics.has(other.slug)) topics.set(other.slug, other.name);
  const label = current ? undefined : entity.label;
  const content = [
    `# ${title}`,
    label ? `**Label:** ${label}` : current?.content.split('\n').find((l) => l.startsWith('**Label:**')),
    `Sessions that mention ${title}, and the topics they mention beside it.`,
    section('Sessions', sessions),
    section('Related topics', topics),
  ]
    .filter((part): part is string => Boolean(part))
    .join('\n\n');
  const names = new Set(current?.entities ?? [entity.name]);
  return {
    slug: entity.slug,
    title,
    kind: 'topic',
    content: `${content}\n`,
    entities: [...names],
    agent_name: current?.agent_name ?? session.agent_name,
    query: current?.query ?? null,
    sources: [...new Set([...(current?.sources ?? []), ...session.sources])],
    cross_refs: [...new Set([...sessions.keys(), ...topics.keys()])],
    created_at: current?.created_at ?? now,
    updated_at: now,
    version: (current?.version ?? 0) + 1,
  };
}

/**
 * The index page after topic pages were added (`added`) or one was removed (`removed`): every topic page, so
 * only saves that create a topic write it (sessions are listed by `GET /wiki/index`). Undefined: no change.
 */
export function indexAfter(
  current: StoredPage | undefined,
  change: { added?: readonly StoredPage[]; removed?: string },
  now: number,
): StoredPage | undefined {
  const topics = linkLines(current?.content ?? '', 'Topics');
  let changed = false;
  for (const page of change.added ?? []) {
    if (page.kind === 'topic' && !topics.has(page.slug)) {
      topics.set(page.slug, page.title);
      changed = true;
    }
  }
  if (change.removed) changed = topics.delete(change.removed) || changed;
  if (!changed) return undefined;
  const sorted = new Map([...topics].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const content = [
    '# Wiki index',
    'Every topic page of this wiki; `GET /wiki/index` lists the sessions too.',
    section('Topics', sorted),
  ].join('\n\n');
  return {
    slug: INDEX_SLUG,
    title: 'Wiki index',
    kind: 'index',
    content: `${content}\n`,
    entities: [],
    agent_name: null,
    query: null,
    sources: [],
    cross_refs: [...sorted.keys()],
    created_at: current?.created_at ?? now,
    updated_at: now,
    version: (current?.version ?? 0) + 1,
  };
}

const LINK = /\[\[([^\]\n]+)\]\]/g;

/** Slugs a page links, in its content and its cross-references. */
export function linksOf(page: StoredPage): Set<string> {
  const links = new Set(page.cross_refs);
  for (const match of page.content.matchAll(LINK)) links.add(match[1]!);
  return links;
}

/** Lint of a wiki's pages (sorted slugs per finding). */
export function lint(pages: readonly StoredPage[], now: number): Wiki.WikiLint {
  const slugs = new Set(pages.map((p) => p.slug));
  const linked = new Set<string>();
  for (const page of pages) {
    if (page.kind === 'index') continue;
    for (const link of linksOf(page)) if (link !== page.slug) linked.add(link);
  }
  const sorted = (list: StoredPage[]) => list.map((p) => p.slug).sort();
  return {
    orphan: sorted(pages.filter((p) => p.kind === 'topic' && !linked.has(p.slug))),
    stale: sorted(pages.filter((p) => now - p.updated_at > STALE_MS)),
    empty: sorted(pages.filter((p) => p.content.trim().length < EMPTY_CHARS)),
    malformed: sorted(
      pages.filter(
        (p) =>
          !p.title.trim() ||
          !/^# \S/.test(p.content) ||
          (p.kind === 'topic' && Wiki.topicSlug(p.slug) !== p.slug) ||
          [...linksOf(p)].some((link) => !slugs.has(link)),
      ),
    ),
  };
}

/** Up to 200 characters of the content around the first query word it holds (else its start). */
export function snippet(page: StoredPage, query: string): string {
  const text = page.content.replace(/\s+/g, ' ').trim();
  const lower = text.toLowerCase();
  let at = -1;
  for (const word of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    at = lower.indexOf(word);
    if (at >= 0) break;
  }
  const start = Math.max(0, at < 0 ? 0 : at - 60);
  const cut = text.slice(start, start + 200);
  return `${start > 0 ? '…' : ''}${cut}${start + 200 < text.length ? '…' : ''}`;
}

export const iso = stamp;

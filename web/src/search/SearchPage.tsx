/**
 * Search: a profile and strategy picker from the tenant's searchable profiles, result cards (snippet, source,
 * score; a video frame's time and picture), and a hit's details. The query lives in the URL, so back and
 * forward and a shared link show the same results.
 */
import type { Search } from '@tessera/api';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { ApiError, api } from '../api';
import { Link, setParams, useLocation } from '../router';
import { useRecoveries } from '../runtime-status';
import { formatTime, frameOf, highlight, visibleFields } from './hits';

/** Search every profile that has content, fused by reciprocal rank fusion. */
const ALL = '*';
const TOP_K = [10, 20, 50];

type Outcome =
  | { state: 'idle' }
  | { state: 'searching' }
  | { state: 'error'; message: string }
  | { state: 'done'; answer: Search.SearchResponse };

function Marked({ text, query }: { text: string; query: string }) {
  return (
    <>
      {highlight(text, query).map((part, index) =>
        part.marked ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: runs of one text keep their order
          <mark key={index}>{part.text}</mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

function FramePicture({ hit }: { hit: Search.SearchResult }) {
  const frame = frameOf(hit);
  if (!frame) return null;
  const span = frame.end !== undefined && frame.end > frame.start ? `–${formatTime(frame.end)}` : '';
  const label = `${frame.frameIndex !== undefined ? `Frame ${frame.frameIndex}, ` : ''}${formatTime(frame.start)}${span}`;
  return (
    <figure className="frame">
      {frame.imageUrl ? (
        <img src={frame.imageUrl} alt={`Video frame at ${formatTime(frame.start)}`} loading="lazy" />
      ) : (
        <div className="frame-placeholder" aria-hidden="true">
          <span>▶</span>
        </div>
      )}
      <figcaption>{label}</figcaption>
    </figure>
  );
}

function HitDialog({
  hit,
  query,
  tenantId,
  onClose,
}: {
  hit: Search.SearchResult | undefined;
  query: string;
  tenantId: string;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (hit && !dialog.open) dialog.showModal();
    if (!hit && dialog.open) dialog.close();
  }, [hit]);
  return (
    <dialog ref={ref} className="hit-dialog" aria-labelledby="hit-title" onClose={onClose}>
      {hit ? (
        <article>
          <header>
            <h2 id="hit-title">{hit.source_doc_id}</h2>
            <button type="button" className="icon-button" onClick={onClose} aria-label="Close details">
              ×
            </button>
          </header>
          <p className="hit-meta">
            Rank {hit.rank} · score {hit.score.toFixed(4)} · {hit.profile}
          </p>
          <FramePicture hit={hit} />
          <p className="hit-text">
            <Marked text={hit.text} query={query} />
          </p>
          <dl className="fields">
            <dt>document_id</dt>
            <dd>{hit.document_id}</dd>
            {visibleFields(hit).map(([name, value]) => (
              <div key={name} className="field">
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <p>
            <Link
              href={`/graph?tenant=${encodeURIComponent(tenantId)}&q=${encodeURIComponent(query)}`}
              onClick={onClose}
            >
              Explore “{query}” in the knowledge graph
            </Link>
          </p>
        </article>
      ) : null}
    </dialog>
  );
}

export function SearchPage({ tenantId }: { tenantId: string }) {
  const id = useId();
  const location = useLocation();
  const recoveries = useRecoveries();
  const urlQuery = location.searchParams.get('q') ?? '';
  const urlProfile = location.searchParams.get('profile') ?? '';
  const urlStrategy = location.searchParams.get('strategy') ?? '';
  const urlTopK = Number(location.searchParams.get('k')) || TOP_K[0]!;

  const [profiles, setProfiles] = useState<Search.SearchableProfile[] | undefined>();
  const [profilesError, setProfilesError] = useState<string | undefined>();
  const [query, setQuery] = useState(urlQuery);
  const [profile, setProfile] = useState(urlProfile);
  const [strategy, setStrategy] = useState(urlStrategy);
  const [topK, setTopK] = useState(urlTopK);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'idle' });
  const [opened, setOpened] = useState<Search.SearchResult | undefined>();

  useEffect(() => {
    let live = true;
    void recoveries;
    api.profiles(tenantId).then(
      (answer) => {
        if (!live) return;
        // Profiles with content first, then those whose schema is deployed.
        const order = (p: Search.SearchableProfile) => (p.document_count > 0 ? 0 : p.schema_deployed ? 1 : 2);
        setProfiles([...answer.profiles].sort((a, b) => order(a) - order(b)));
        setProfilesError(undefined);
      },
      (error: Error) => live && setProfilesError(error.message),
    );
    return () => {
      live = false;
    };
  }, [tenantId, recoveries]);

  const withContent = useMemo(() => (profiles ?? []).filter((p) => p.document_count > 0), [profiles]);

  // Until one is picked: every profile with content when there are several, else the one there is.
  const defaultChoice =
    withContent.length > 1 ? ALL : (withContent[0]?.profile_name ?? profiles?.[0]?.profile_name ?? '');
  const chosen = profile || defaultChoice;
  const searched = chosen === ALL ? withContent : (profiles ?? []).filter((p) => p.profile_name === chosen);
  const strategies = useMemo(() => {
    if (searched.length === 0) return [];
    return searched[0]!.ranking_strategies.filter((s) =>
      searched.every((p) => p.ranking_strategies.includes(s)),
    );
  }, [searched]);
  const defaultStrategy = searched.length === 1 ? searched[0]!.default_ranking_strategy : undefined;

  // Keep the form in step with the URL (back and forward).
  useEffect(() => {
    setQuery(urlQuery);
    setProfile(urlProfile);
    setStrategy(urlStrategy);
    setTopK(urlTopK);
  }, [urlQuery, urlProfile, urlStrategy, urlTopK]);

  // Run the search the URL names.
  const urlChosen = urlProfile || defaultChoice;
  useEffect(() => {
    void recoveries;
    if (!urlQuery || !profiles) return;
    const names = urlChosen === ALL ? withContent.map((p) => p.profile_name) : urlChosen ? [urlChosen] : [];
    if (names.length === 0) {
      setOutcome({
        state: 'error',
        message: 'This tenant has no content to search yet. Upload some files first.',
      });
      return;
    }
    const controller = new AbortController();
    setOutcome({ state: 'searching' });
    api
      .search(
        {
          query: urlQuery,
          tenant_id: tenantId,
          ...(names.length === 1 ? { profile: names[0] } : { profiles: names }),
          ...(urlStrategy ? { strategy: urlStrategy as Search.RankingStrategy } : {}),
          top_k: urlTopK,
        },
        controller.signal,
      )
      .then(
        (answer) => setOutcome({ state: 'done', answer }),
        (error: Error) => {
          if (controller.signal.aborted) return;
          setOutcome({ state: 'error', message: error instanceof ApiError ? error.message : String(error) });
        },
      );
    return () => controller.abort();
    // A search the outage failed runs again when the runtime is back (`recoveries`).
  }, [urlQuery, urlChosen, urlStrategy, urlTopK, profiles, withContent, tenantId, recoveries]);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const text = query.trim();
    if (!text) return;
    setParams({
      q: text,
      profile: profile || undefined,
      strategy: strategy || undefined,
      k: topK === TOP_K[0] ? undefined : String(topK),
    });
  };

  const results = outcome.state === 'done' ? outcome.answer.results : [];

  return (
    <section aria-labelledby={`${id}-title`} className="page">
      <h1 id={`${id}-title`} tabIndex={-1}>
        Search
      </h1>
      <search>
        <form className="search-form" onSubmit={submit}>
          <div className="field-row grow">
            <label htmlFor={`${id}-q`}>Query</label>
            <input
              id={`${id}-q`}
              type="search"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              placeholder="What are you looking for?"
              maxLength={10_000}
              required
            />
          </div>
          <div className="field-row">
            <label htmlFor={`${id}-profile`}>Profile</label>
            <select
              id={`${id}-profile`}
              value={chosen}
              onChange={(event) => {
                setProfile(event.target.value);
                setStrategy('');
              }}
              disabled={!profiles}
            >
              {!profiles ? <option value="">Loading…</option> : null}
              {withContent.length > 1 ? <option value={ALL}>All profiles with content (fused)</option> : null}
              {(profiles ?? []).map((p) => (
                <option key={p.profile_name} value={p.profile_name}>
                  {p.profile_name} · {p.type}, {p.document_count}{' '}
                  {p.document_count === 1 ? 'document' : 'documents'}
                </option>
              ))}
            </select>
          </div>
          <div className="field-row">
            <label htmlFor={`${id}-strategy`}>Ranking strategy</label>
            <select
              id={`${id}-strategy`}
              value={strategy}
              onChange={(event) => setStrategy(event.target.value)}
              disabled={strategies.length === 0}
            >
              <option value="">
                {defaultStrategy ? `Profile default (${defaultStrategy})` : "Each profile's default"}
              </option>
              {strategies.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div className="field-row narrow">
            <label htmlFor={`${id}-k`}>Results</label>
            <select id={`${id}-k`} value={topK} onChange={(event) => setTopK(Number(event.target.value))}>
              {TOP_K.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="primary" disabled={!query.trim()}>
            Search
          </button>
        </form>
      </search>
      {profilesError ? (
        <p className="error" role="alert">
          Profiles could not be loaded: {profilesError}
        </p>
      ) : null}
      {profiles && withContent.length === 0 ? (
        <p className="hint">
          This tenant has no indexed content yet.{' '}
          <Link href={`/upload?tenant=${encodeURIComponent(tenantId)}`}>Upload files</Link> to search them.
        </p>
      ) : null}

      <div aria-live="polite" className="result-summary">
        {outcome.state === 'searching' ? <p>Searching…</p> : null}
        {outcome.state === 'error' ? (
          <p className="error" role="alert">
            {outcome.message}
          </p>
        ) : null}
        {outcome.state === 'done' ? (
          <p>
            {outcome.answer.count === 0
              ? `No results for “${outcome.answer.query}”.`
              : `${outcome.answer.count} ${outcome.answer.count === 1 ? 'result' : 'results'} for “${outcome.answer.query}”`}{' '}
            <span className="muted">
              (
              {typeof outcome.answer.strategy === 'string'
                ? outcome.answer.strategy
                : 'per-profile strategies'}
              , {Math.round(outcome.answer.took_ms)} ms)
            </span>
          </p>
        ) : null}
      </div>

      {results.length > 0 ? (
        <ol className="results">
          {results.map((hit) => (
            <li key={`${hit.profile}:${hit.document_id}`}>
              <article className="card hit">
                <FramePicture hit={hit} />
                <div className="hit-body">
                  <h2>
                    <button type="button" className="link-button" onClick={() => setOpened(hit)}>
                      {hit.source_doc_id}
                    </button>
                  </h2>
                  <p className="hit-text">
                    <Marked text={hit.text} query={urlQuery} />
                  </p>
                  <p className="hit-meta">
                    <span>#{hit.rank}</span>
                    <span>score {hit.score.toFixed(3)}</span>
                    <span>{hit.profile}</span>
                  </p>
                </div>
              </article>
            </li>
          ))}
        </ol>
      ) : null}
      <HitDialog hit={opened} query={urlQuery} tenantId={tenantId} onClose={() => setOpened(undefined)} />
    </section>
  );
}

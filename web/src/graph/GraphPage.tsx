/**
 * The knowledge graph explorer: start from the tenant's most connected nodes or a node search, expand a
 * node's neighbours a page at a time, and show the shortest path between two nodes. The picture is sigma's;
 * every node and edge is also in the lists beside it, which are the keyboard's way through the graph.
 */
import type { Graph as Api } from '@tessera/api';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { ApiError, api } from '../api';
import { useLocation } from '../router';
import { GraphView } from './GraphView';
import {
  addNeighborPage,
  addNode,
  addPath,
  createGraph,
  edgesOf,
  MAX_NODES,
  NEIGHBOR_PAGE,
  type Pending,
  pathEdges,
} from './model';

const LIST_LIMIT = 150;
/** Graphs up to this size are laid out again after each change; larger ones keep their placement. */
const LAYOUT_LIMIT = 400;

const edges = (count: number) => `${count.toLocaleString()} ${count === 1 ? 'edge' : 'edges'}`;
const message = (error: unknown) => (error instanceof ApiError ? error.message : String(error));

export default function GraphPage({ tenantId }: { tenantId: string }) {
  const id = useId();
  const location = useLocation();
  const graph = useMemo(() => createGraph(), []);
  const [version, setVersion] = useState(0);
  const [stats, setStats] = useState<Api.GraphStats | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [selected, setSelected] = useState<string | undefined>();
  const [pending, setPending] = useState<Map<string, Pending>>(new Map());
  const [query, setQuery] = useState(location.searchParams.get('q') ?? '');
  const [hits, setHits] = useState<Api.NodeHit[] | undefined>();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [path, setPath] = useState<string[]>([]);
  const [pathMessage, setPathMessage] = useState<string | undefined>();
  const [filter, setFilter] = useState('');

  const changed = useCallback(() => {
    if (graph.order > 1 && graph.order <= LAYOUT_LIMIT) {
      forceAtlas2.assign(graph, {
        iterations: 40,
        settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 200 },
      });
    }
    setVersion((v) => v + 1);
  }, [graph]);

  const expand = useCallback(
    async (node: string, more = false) => {
      setSelected(node);
      setNotice(undefined);
      let page = pending.get(node);
      if (!page || !more) {
        setBusy(
          `Loading the neighbours of ${graph.hasNode(node) ? graph.getNodeAttribute(node, 'label') : node}…`,
        );
        try {
          const answer = await api.neighbors(tenantId, node);
          addNode(graph, answer.node_id, { name: answer.name });
          if (answer.node_id !== node) setSelected(answer.node_id);
          node = answer.node_id;
          page = { edges: edgesOf(answer), taken: 0 };
        } catch (error) {
          setNotice(message(error));
          setBusy(undefined);
          return;
        }
        setBusy(undefined);
      }
      const { pending: left, full } = addNeighborPage(graph, node, page);
      setPending((current) => new Map(current).set(node, left));
      if (full)
        setNotice(
          `The view holds at most ${MAX_NODES.toLocaleString()} nodes. Clear it to explore elsewhere.`,
        );
      else if (left.edges.length === 0) setNotice('This node has no edges.');
      changed();
    },
    [graph, pending, tenantId, changed],
  );

  // Start from the most connected nodes, and expand the first; or from the search the URL names.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per tenant (the page is keyed by it)
  useEffect(() => {
    let live = true;
    api.graphStats(tenantId).then(
      (answer) => {
        if (!live) return;
        setStats(answer);
        for (const top of answer.top_nodes)
          addNode(graph, top.node_id, { name: top.name, degree: top.degree });
        changed();
        const first = answer.top_nodes[0];
        if (first && !location.searchParams.get('q')) void expand(first.node_id);
      },
      (error) => live && setLoadError(message(error)),
    );
    return () => {
      live = false;
    };
  }, [tenantId]);

  const runSearch = useCallback(
    async (text: string) => {
      if (!text.trim()) return;
      setBusy(`Searching for “${text}”…`);
      try {
        const answer = await api.graphSearch(tenantId, text.trim());
        setHits(answer.nodes);
        for (const node of answer.nodes)
          addNode(graph, node.node_id, {
            name: node.name,
            degree: node.degree,
            description: node.description,
            kind: node.kind,
          });
        changed();
      } catch (error) {
        setNotice(message(error));
      } finally {
        setBusy(undefined);
      }
    },
    [graph, tenantId, changed],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: the URL's query runs once, on arrival
  useEffect(() => {
    const q = location.searchParams.get('q');
    if (q) void runSearch(q);
  }, []);

  const findPath = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!from.trim() || !to.trim()) return;
    setPathMessage(undefined);
    setBusy('Looking for a path…');
    try {
      const answer = await api.path(tenantId, from.trim(), to.trim());
      if (!answer.path) {
        setPath([]);
        setPathMessage(`No path from “${from}” to “${to}” within 6 steps.`);
      } else {
        if (!addPath(graph, answer.path)) setNotice(`The view is full (${MAX_NODES} nodes): clear it first.`);
        setPath(answer.path);
        setPathMessage(
          `${answer.length} ${answer.length === 1 ? 'step' : 'steps'}: ${answer.path
            .map((node) => (graph.hasNode(node) ? graph.getNodeAttribute(node, 'label') : node))
            .join(' → ')}`,
        );
        changed();
      }
    } catch (error) {
      setPathMessage(message(error));
    } finally {
      setBusy(undefined);
    }
  };

  const clear = () => {
    graph.clear();
    setPending(new Map());
    setSelected(undefined);
    setPath([]);
    setPathMessage(undefined);
    setHits(undefined);
    setNotice(undefined);
    setVersion((v) => v + 1);
  };

  const pathNodeSet = useMemo(() => new Set(path), [path]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: recomputed when the graph changes (version)
  const pathEdgeSet = useMemo(() => pathEdges(graph, path), [graph, path, version]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: recomputed when the graph changes (version)
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return graph
      .mapNodes((node, attributes) => ({
        node,
        label: attributes.label,
        degree: attributes.degree ?? graph.degree(node),
      }))
      .filter((entry) => !needle || entry.label.toLowerCase().includes(needle) || entry.node.includes(needle))
      .sort((a, b) => b.degree - a.degree || a.label.localeCompare(b.label));
  }, [graph, version, filter]);

  const label = (node: string) => (graph.hasNode(node) ? graph.getNodeAttribute(node, 'label') : node);
  const selectedEdges =
    selected && graph.hasNode(selected)
      ? [
          ...graph.mapOutEdges(selected, (edge, attributes, _source, target) => ({
            edge,
            direction: 'out' as const,
            other: target,
            relation: attributes.relation,
          })),
          ...graph.mapInEdges(selected, (edge, attributes, source) => ({
            edge,
            direction: 'in' as const,
            other: source,
            relation: attributes.relation,
          })),
        ]
      : [];
  const selectedPending = selected ? pending.get(selected) : undefined;
  const remaining = selectedPending ? selectedPending.edges.length - selectedPending.taken : undefined;
  const selectedAttributes =
    selected && graph.hasNode(selected) ? graph.getNodeAttributes(selected) : undefined;
  const describe = `Knowledge graph view: ${graph.order} nodes and ${graph.size} edges shown${selectedAttributes ? `, ${selectedAttributes.label} selected` : ''}.`;

  return (
    <section aria-labelledby={`${id}-title`} className="page graph-page">
      <div className="graph-head">
        <h1 id={`${id}-title`} tabIndex={-1}>
          Knowledge graph
        </h1>
        <p className="muted" aria-live="polite">
          {stats
            ? `${stats.node_count.toLocaleString()} nodes and ${stats.edge_count.toLocaleString()} edges in this tenant; ${graph.order.toLocaleString()} shown.`
            : loadError
              ? ''
              : 'Loading…'}
        </p>
      </div>
      {loadError ? (
        <p className="error" role="alert">
          {loadError}
        </p>
      ) : null}
      {stats && stats.node_count === 0 ? (
        <p className="hint">
          This tenant's graph is empty. Upload documents or code: their entities, claims and symbols become
          nodes and edges.
        </p>
      ) : null}
      <div className="graph-layout">
        <aside className="graph-side" aria-label="Find nodes">
          <search>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void runSearch(query);
              }}
            >
              <label htmlFor={`${id}-q`}>Find nodes</label>
              <div className="inline">
                <input
                  id={`${id}-q`}
                  type="search"
                  value={query}
                  onChange={(event) => setQuery(event.target.value)}
                />
                <button type="submit">Find</button>
              </div>
            </form>
          </search>
          {hits ? (
            <>
              <h2>Matches</h2>
              {hits.length === 0 ? <p className="hint">No node matches.</p> : null}
              <ul className="node-list">
                {hits.map((hit) => (
                  <li key={hit.node_id}>
                    <button type="button" className="link-button" onClick={() => void expand(hit.node_id)}>
                      {hit.name}
                    </button>{' '}
                    <span className="muted">
                      {hit.label} · {edges(hit.degree)}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {stats && stats.top_nodes.length > 0 ? (
            <>
              <h2>Most connected</h2>
              <ul className="node-list">
                {stats.top_nodes.map((top) => (
                  <li key={top.node_id}>
                    <button type="button" className="link-button" onClick={() => void expand(top.node_id)}>
                      {top.name}
                    </button>{' '}
                    <span className="muted">{edges(top.degree)}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <form className="path-form" onSubmit={findPath} aria-labelledby={`${id}-path`}>
            <h2 id={`${id}-path`}>Path between two nodes</h2>
            <label htmlFor={`${id}-from`}>From</label>
            <input
              id={`${id}-from`}
              list={`${id}-names`}
              value={from}
              onChange={(event) => setFrom(event.target.value)}
            />
            <label htmlFor={`${id}-to`}>To</label>
            <input
              id={`${id}-to`}
              list={`${id}-names`}
              value={to}
              onChange={(event) => setTo(event.target.value)}
            />
            <datalist id={`${id}-names`}>
              {shown.slice(0, LIST_LIMIT).map((entry) => (
                <option key={entry.node} value={entry.node}>
                  {entry.label}
                </option>
              ))}
            </datalist>
            <div className="inline">
              <button type="submit" disabled={!from.trim() || !to.trim()}>
                Show path
              </button>
              {path.length > 0 ? (
                <button type="button" onClick={() => setPath([])}>
                  Hide path
                </button>
              ) : null}
            </div>
            {pathMessage ? (
              <p className="path-message" role="status">
                {pathMessage}
              </p>
            ) : null}
          </form>
        </aside>
        <div className="graph-main">
          <GraphView
            graph={graph}
            version={version}
            selected={selected}
            pathNodes={pathNodeSet}
            pathEdges={pathEdgeSet}
            onSelect={setSelected}
            onExpand={(node) => void expand(node)}
            describe={describe}
          />
          <p className="graph-status" role="status">
            {busy ?? notice ?? 'Click a node to select it, double-click to expand it.'}
          </p>
          <div className="inline graph-tools">
            <button type="button" onClick={clear} disabled={graph.order === 0}>
              Clear view
            </button>
          </div>
        </div>
        <aside className="graph-side" aria-label="Selected node and shown nodes">
          {selectedAttributes && selected ? (
            <section className="card selected-node" aria-labelledby={`${id}-selected`}>
              <h2 id={`${id}-selected`}>{selectedAttributes.label}</h2>
              <p className="muted">
                {selected}
                {selectedAttributes.degree !== undefined ? ` · ${edges(selectedAttributes.degree)}` : ''}
              </p>
              {selectedAttributes.description ? <p>{selectedAttributes.description}</p> : null}
              <div className="inline">
                {selectedPending === undefined ? (
                  <button type="button" className="primary" onClick={() => void expand(selected)}>
                    Expand neighbours
                  </button>
                ) : remaining && remaining > 0 ? (
                  <button type="button" className="primary" onClick={() => void expand(selected, true)}>
                    Load {Math.min(NEIGHBOR_PAGE, remaining)} more ({remaining} not shown)
                  </button>
                ) : (
                  <span className="muted">All neighbours shown</span>
                )}
                <button type="button" onClick={() => setFrom(selected)}>
                  Path from here
                </button>
                <button type="button" onClick={() => setTo(selected)}>
                  Path to here
                </button>
              </div>
              {selectedEdges.length > 0 ? (
                <ul className="edge-list">
                  {selectedEdges.slice(0, LIST_LIMIT).map((entry) => (
                    <li key={entry.edge}>
                      {entry.direction === 'out' ? '→' : '←'}{' '}
                      <span className="relation">{entry.relation}</span>{' '}
                      <button type="button" className="link-button" onClick={() => setSelected(entry.other)}>
                        {label(entry.other)}
                      </button>
                    </li>
                  ))}
                </ul>
              ) : null}
            </section>
          ) : null}
          <h2>
            <label htmlFor={`${id}-filter`}>Shown nodes ({shown.length.toLocaleString()})</label>
          </h2>
          <input
            id={`${id}-filter`}
            type="search"
            placeholder="Filter"
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
          />
          <ul className="node-list">
            {shown.slice(0, LIST_LIMIT).map((entry) => (
              <li key={entry.node}>
                <button
                  type="button"
                  className="link-button"
                  aria-pressed={entry.node === selected}
                  onClick={() => setSelected(entry.node)}
                >
                  {entry.label}
                </button>
              </li>
            ))}
          </ul>
          {shown.length > LIST_LIMIT ? (
            <p className="muted">{(shown.length - LIST_LIMIT).toLocaleString()} more: filter to find them.</p>
          ) : null}
        </aside>
      </div>
    </section>
  );
}

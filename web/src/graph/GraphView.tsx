/** The graph picture: sigma renders the explorer's graphology graph with WebGL. */
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import { COLORS, type EdgeAttributes, type ExplorerGraph, type NodeAttributes } from './model';

export interface GraphViewProps {
  graph: ExplorerGraph;
  /** Changes whenever the graph changed, to refresh the picture. */
  version: number;
  selected?: string;
  pathNodes: Set<string>;
  pathEdges: Set<string>;
  onSelect(node: string): void;
  onExpand(node: string): void;
  describe: string;
}

export function GraphView({
  graph,
  version,
  selected,
  pathNodes,
  pathEdges,
  onSelect,
  onExpand,
  describe,
}: GraphViewProps) {
  const container = useRef<HTMLDivElement>(null);
  const sigma = useRef<Sigma<NodeAttributes, EdgeAttributes> | null>(null);
  const [failure, setFailure] = useState<string | undefined>();
  const state = useRef({ selected, pathNodes, pathEdges, onSelect, onExpand });
  state.current = { selected, pathNodes, pathEdges, onSelect, onExpand };

  useEffect(() => {
    if (!container.current) return;
    let renderer: Sigma<NodeAttributes, EdgeAttributes>;
    try {
      renderer = new Sigma(graph, container.current, {
        defaultEdgeType: 'arrow',
        labelRenderedSizeThreshold: 4,
        stagePadding: 40,
        labelDensity: 0.8,
        zIndex: true,
        nodeReducer: (node, data) => {
          const { selected: chosen, pathNodes: onPath } = state.current;
          if (node === chosen)
            return { ...data, color: COLORS.selected, highlighted: true, zIndex: 2, forceLabel: true };
          if (onPath.has(node)) return { ...data, color: COLORS.path, zIndex: 1, forceLabel: true };
          if (onPath.size > 0) return { ...data, color: '#c5cedb', label: data.label };
          return data;
        },
        edgeReducer: (edge, data) => {
          const { pathEdges: onPath } = state.current;
          if (onPath.has(edge)) return { ...data, color: COLORS.pathEdge, size: 3, zIndex: 1 };
          return data;
        },
      });
    } catch (error) {
      setFailure((error as Error).message);
      return;
    }
    sigma.current = renderer;
    renderer.on('clickNode', ({ node }) => state.current.onSelect(node));
    renderer.on('doubleClickNode', (event) => {
      event.preventSigmaDefault();
      state.current.onExpand(event.node);
    });
    renderer.on('enterNode', () => {
      if (container.current) container.current.style.cursor = 'pointer';
    });
    renderer.on('leaveNode', () => {
      if (container.current) container.current.style.cursor = '';
    });
    return () => {
      renderer.kill();
      sigma.current = null;
    };
  }, [graph]);

  useEffect(() => {
    void version;
    void selected;
    void pathNodes;
    sigma.current?.refresh();
  }, [version, selected, pathNodes]);

  // Bring the selected node into view.
  useEffect(() => {
    const renderer = sigma.current;
    if (!renderer || !selected || !graph.hasNode(selected)) return;
    const position = renderer.getNodeDisplayData(selected);
    if (position) renderer.getCamera().animate({ x: position.x, y: position.y }, { duration: 300 });
  }, [selected, graph]);

  if (failure) {
    return (
      <div className="graph-canvas graph-fallback" role="note">
        <p>
          The graph picture needs WebGL, which this browser does not offer ({failure}). The lists beside it
          show the same nodes and edges.
        </p>
      </div>
    );
  }
  return <div ref={container} className="graph-canvas" role="img" aria-label={describe} />;
}

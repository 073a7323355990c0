/**
 * Positions for a `DefinitionGraph` (dagre, top to bottom): node centres, edge polylines and
 * cluster boxes, in SVG user units. Clusters are dagre compound nodes, so a BRANCH or PARALLEL
 * draws as a box around its cases and branches, nested as deep as the definition nests.
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { DefinitionGraph, GraphCluster, GraphEdge, GraphNode } from './definition-graph.js';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 44;
const JOIN_SIZE = 14;

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedNode extends Box {
  readonly node: GraphNode;
}

export interface PlacedEdge {
  readonly edge: GraphEdge;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

export interface PlacedCluster extends Box {
  readonly cluster: GraphCluster;
}

export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
  readonly clusters: readonly PlacedCluster[];
}

export function layoutGraph(graph: DefinitionGraph): GraphLayout {
  const g = new Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 36, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of graph.clusters) {
    g.setNode(c.id, { label: c.label, paddingTop: 18 });
  }
  for (const c of graph.clusters) {
    if (c.parent !== undefined) {
      g.setParent(c.id, c.parent);
    }
  }
  for (const n of graph.nodes) {
    const size = n.role === 'join' ? JOIN_SIZE : undefined;
    g.setNode(n.id, { width: size ?? NODE_WIDTH, height: size ?? NODE_HEIGHT });
    if (n.cluster !== undefined) {
      g.setParent(n.id, n.cluster);
    }
  }
  graph.edges.forEach((e, i) => {
    g.setEdge(
      e.from,
      e.to,
      e.label === undefined ? {} : { label: e.label, width: 48, height: 14 },
      String(i),
    );
  });
  layout(g);
  return {
    width: (g.graph() as LaidOut).width ?? 0,
    height: (g.graph() as LaidOut).height ?? 0,
    nodes: graph.nodes.map((node) => ({ node, ...boxOf(g, node.id) })),
    clusters: graph.clusters.map((cluster) => ({ cluster, ...boxOf(g, cluster.id) })),
    edges: graph.edges.map((edge, i) => ({
      edge,
      points:
        (g.edge(edge.from, edge.to, String(i)) as { points?: PlacedEdge['points'] } | undefined)
          ?.points ?? [],
    })),
  };
}

/** What dagre writes on a node and an edge after `layout` (its typings leave them `any`). */
interface LaidOut {
  readonly x?: number;
  readonly y?: number;
  readonly width?: number;
  readonly height?: number;
}

function boxOf(g: Graph, id: string): Box {
  const n = g.node(id) as LaidOut | undefined;
  return { x: n?.x ?? 0, y: n?.y ?? 0, width: n?.width ?? 0, height: n?.height ?? 0 };
}

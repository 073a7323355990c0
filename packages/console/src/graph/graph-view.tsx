/**
 * The definition drawn as SVG from its dagre layout: nodes coloured by step status when an
 * instance's steps are given, clusters for BRANCH and PARALLEL, edges with their case labels.
 * A click on a step node calls `onSelect` with its step id.
 */
import { useMemo } from 'react';
import { statusFill } from '../status-colors.js';
import type { DefinitionGraph } from './definition-graph.js';
import { layoutGraph } from './layout.js';
import type { PlacedEdge, PlacedNode } from './layout.js';

export interface GraphViewProps {
  readonly graph: DefinitionGraph;
  /** Step id → status (from `client.instances.steps`); absent: drawn uncoloured. */
  readonly statuses?: ReadonlyMap<string, string>;
  readonly selected?: string | undefined;
  readonly onSelect?: (stepId: string) => void;
}

export function GraphView({ graph, statuses, selected, onSelect }: GraphViewProps) {
  const placed = useMemo(() => layoutGraph(graph), [graph]);
  return (
    <svg
      data-testid="definition-graph"
      width={placed.width}
      height={placed.height}
      viewBox={`0 0 ${placed.width} ${placed.height}`}
      style={{ maxWidth: '100%', height: 'auto', fontFamily: 'inherit' }}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" fill="#868e96" />
        </marker>
      </defs>
      {placed.clusters.map((c) => (
        <g key={c.cluster.id}>
          <rect
            x={c.x - c.width / 2}
            y={c.y - c.height / 2}
            width={c.width}
            height={c.height}
            rx={8}
            fill="rgba(134,142,150,0.06)"
            stroke="#ced4da"
            strokeDasharray="4 3"
          />
          <text x={c.x - c.width / 2 + 8} y={c.y - c.height / 2 + 13} fontSize={10} fill="#868e96">
            {c.cluster.label}
          </text>
        </g>
      ))}
      {placed.edges.map((e, i) => (
        <EdgePath key={i} placed={e} />
      ))}
      {placed.nodes.map((n) => (
        <NodeBox
          key={n.node.id}
          placed={n}
          status={statuses?.get(n.node.stepId)}
          selected={selected === n.node.stepId && n.node.role === 'step'}
          onSelect={onSelect}
        />
      ))}
    </svg>
  );
}

function EdgePath({ placed }: { readonly placed: PlacedEdge }) {
  const points = placed.points;
  if (points.length === 0) {
    return null;
  }
  const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' ');
  const middle = points[Math.floor(points.length / 2)];
  return (
    <g>
      <path d={d} fill="none" stroke="#adb5bd" strokeWidth={1.2} markerEnd="url(#arrow)" />
      {placed.edge.label !== undefined && middle !== undefined && (
        <text x={middle.x + 4} y={middle.y} fontSize={10} fill="#495057">
          {placed.edge.label}
        </text>
      )}
    </g>
  );
}

interface NodeBoxProps {
  readonly placed: PlacedNode;
  readonly status: string | undefined;
  readonly selected: boolean;
  readonly onSelect: ((stepId: string) => void) | undefined;
}

function NodeBox({ placed, status, selected, onSelect }: NodeBoxProps) {
  const { node, x, y, width, height } = placed;
  const [fill, stroke] = statusFill(status);
  if (node.role === 'join') {
    return <circle cx={x} cy={y} r={width / 2} fill={fill} stroke={stroke} />;
  }
  return (
    <g
      data-testid={`graph-node-${node.stepId}`}
      data-status={status ?? ''}
      transform={`translate(${x - width / 2},${y - height / 2})`}
      style={{ cursor: onSelect === undefined ? 'default' : 'pointer' }}
      onClick={() => onSelect?.(node.stepId)}
    >
      <title>{`${node.stepId} (${node.kind})${status === undefined ? '' : `: ${status}`}`}</title>
      <rect
        width={width}
        height={height}
        rx={6}
        fill={fill}
        stroke={stroke}
        strokeWidth={selected ? 3 : 1.5}
      />
      <text x={8} y={17} fontSize={12} fontWeight={600} fill="#212529">
        {truncate(node.stepId, 20)}
      </text>
      <text x={8} y={33} fontSize={10} fill="#495057">
        {truncate(
          `${node.kind}${node.detail === '' ? '' : ` · ${node.detail}`}${status === undefined ? '' : ` · ${status}`}`,
          30,
        )}
      </text>
    </g>
  );
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

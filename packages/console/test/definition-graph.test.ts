/** The definition → graph mapping and exact JSON text, without a browser. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonText, toCellText, toJsonText } from '../src/exact-json.js';
import { toDefinitionGraph } from '../src/graph/definition-graph.js';
import { EXACT_AMOUNT, ORDER_DEFINITION, largeDefinition } from './support/workflows.js';

test('draws a node per step, a join per BRANCH and PARALLEL, and edges by sequence', () => {
  const graph = toDefinitionGraph(ORDER_DEFINITION);
  const steps = graph.nodes.filter((n) => n.role === 'step').map((n) => n.id);
  assert.deepEqual(steps, ['reserve', 'big', 'approve', 'ship', 'print', 'mail', 'charge']);
  assert.deepEqual(
    graph.clusters.map((c) => c.id),
    ['cluster:big', 'cluster:ship'],
  );
  const edges = graph.edges.map(
    (e) => `${e.from}->${e.to}${e.label === undefined ? '' : `:${e.label}`}`,
  );
  assert.deepEqual(edges, [
    'big->approve:case 1',
    'approve->big$join',
    'big->big$join:default',
    'reserve->big',
    'ship->print:label',
    'print->ship$join',
    'ship->mail:notify',
    'mail->ship$join',
    'big$join->ship',
    'ship$join->charge',
  ]);
  assert.equal(graph.nodes.find((n) => n.id === 'approve')?.cluster, 'cluster:big');
});

test('nests clusters and counts 128 steps of the large definition', () => {
  const graph = toDefinitionGraph(largeDefinition());
  assert.equal(graph.nodes.filter((n) => n.role === 'step').length, 128);
  const nested = toDefinitionGraph({
    steps: [
      {
        id: 'outer',
        kind: 'PARALLEL',
        branches: { a: [{ id: 'inner', kind: 'BRANCH', cases: [] }] },
      },
    ],
  });
  assert.equal(nested.clusters.find((c) => c.id === 'cluster:inner')?.parent, 'cluster:outer');
});

test('shows and parses exact numbers as their text', () => {
  const parsed = parseJsonText(`{"amount": ${EXACT_AMOUNT}}`);
  assert.ok(parsed.ok);
  assert.match(toJsonText(parsed.value), new RegExp(EXACT_AMOUNT.replace(/\./g, '\\.')));
  assert.equal(toCellText({ kind: 'number', text: EXACT_AMOUNT }), EXACT_AMOUNT);
  assert.equal(parseJsonText('{"a": 1,}').ok, false);
});

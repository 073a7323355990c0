/**
 * The namespace-scope checker (docs/design/runtime.md §7): given one SQL statement as Kysely
 * compiles it (identifiers in backticks on MariaDB, double quotes on SQLite), which namespaced
 * tables it touches without constraining their `namespace_id`.
 *
 * Rules, per query scope (the statement, and each parenthesised sub-query or CTE on its own):
 *   - SELECT / UPDATE / DELETE: every table with a `namespace_id` column named in FROM, JOIN,
 *     UPDATE or DELETE … FROM must have a predicate on its `namespace_id` in WHERE, ON or HAVING:
 *     `namespace_id = <value>`, `<value> = namespace_id`, `namespace_id in (…)`, or equality with
 *     another table's `namespace_id` that is itself constrained (a join carrying the namespace).
 *     A `SET namespace_id = ?` is no filter. Unqualified `namespace_id` applies to every
 *     namespaced table of the scope (SQL would reject it as ambiguous if two had the column).
 *   - INSERT: the column list must name `namespace_id`; an INSERT … SELECT is checked as well.
 *   - No table at all (`SELECT 1`, the clock, BEGIN/COMMIT/ROLLBACK/SAVEPOINT/RELEASE, SET,
 *     DDL, PRAGMA): nothing to check.
 * A tokenising check, not a parser: OR is not understood (`namespace_id = ? OR x` passes).
 */

export interface ScopeVerdict {
  /** Namespaced tables the statement touches without a namespace_id constraint (sorted). */
  readonly unscoped: readonly string[];
}

type TokenKind = 'word' | 'ident' | 'string' | 'number' | 'param' | 'punct';

interface Token {
  readonly kind: TokenKind;
  /** Lower-cased for words; the name for quoted identifiers. */
  readonly text: string;
}

const NOT_CHECKED = new Set([
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'set',
  'create',
  'drop',
  'alter',
  'pragma',
  'show',
  'explain',
]);

/** Words that end a table list (after FROM, JOIN, UPDATE). */
const CLAUSE_WORDS = new Set([
  'where',
  'on',
  'set',
  'group',
  'order',
  'limit',
  'offset',
  'for',
  'having',
  'union',
  'except',
  'intersect',
  'using',
  'returning',
  'window',
  'lock',
  'values',
  'select',
  'join',
  'inner',
  'left',
  'right',
  'full',
  'cross',
  'outer',
  'natural',
  'straight_join',
  'from',
  'force',
  'use',
  'ignore',
  'indexed',
  'not',
  'as',
]);

/** Words after which a new clause (section) of the scope starts. */
const SECTION_WORDS = new Set([
  'select',
  'from',
  'join',
  'where',
  'on',
  'set',
  'group',
  'order',
  'having',
  'limit',
  'values',
  'returning',
  'for',
  'update',
  'into',
  'delete',
  'insert',
  'replace',
]);

const FILTER_SECTIONS = new Set(['where', 'on', 'having']);

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      i = endOf(sql, '\n', i + 2);
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === '`' || c === '"') {
      const [text, next] = quoted(sql, i, c);
      tokens.push({ kind: 'ident', text });
      i = next;
    } else if (c === "'") {
      const [text, next] = quoted(sql, i, c);
      tokens.push({ kind: 'string', text });
      i = next;
    } else if (c === '?') {
      tokens.push({ kind: 'param', text: '?' });
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', text: m[0].toLowerCase() });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9.eE]*/.exec(sql.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', text: m[0] });
      i += m[0].length;
    } else {
      const m = /^(<=>|<>|!=|<=|>=|\|\||::|.)/.exec(sql.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'punct', text: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

function endOf(sql: string, char: string, from: number): number {
  const at = sql.indexOf(char, from);
  return at < 0 ? sql.length : at + 1;
}

/** A quoted token from `start` (the quote): its text with doubled quotes (and `\x`) undone. */
function quoted(sql: string, start: number, quote: string): [string, number] {
  let text = '';
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (c === '\\' && quote === "'") {
      text += sql[i + 1] ?? '';
      i += 2;
    } else if (c === quote && sql[i + 1] === quote) {
      text += quote;
      i += 2;
    } else if (c === quote) {
      return [text, i + 1];
    } else {
      text += c;
      i++;
    }
  }
  return [text, i];
}

/** A token, or a parenthesised group (its tokens without the parentheses). */
type Node = Token | Group;
interface Group {
  readonly kind: 'group';
  readonly nodes: Node[];
}

function nest(tokens: readonly Token[]): Node[] {
  const stack: Node[][] = [[]];
  for (const token of tokens) {
    const top = stack[stack.length - 1] as Node[];
    if (token.kind === 'punct' && token.text === '(') {
      const group: Group = { kind: 'group', nodes: [] };
      top.push(group);
      stack.push(group.nodes);
    } else if (token.kind === 'punct' && token.text === ')' && stack.length > 1) {
      stack.pop();
    } else {
      top.push(token);
    }
  }
  return stack[0] as Node[];
}

function isWord(node: Node | undefined, ...words: string[]): boolean {
  return node !== undefined && node.kind === 'word' && words.includes(node.text);
}

function isPunct(node: Node | undefined, text: string): boolean {
  return node !== undefined && node.kind === 'punct' && node.text === text;
}

function isSubquery(node: Node): boolean {
  return node.kind === 'group' && isWord(node.nodes[0], 'select', 'with');
}

/** A name token: a quoted identifier or a bare word that is not a clause word. */
function nameOf(node: Node | undefined): string | undefined {
  if (node === undefined) {
    return undefined;
  }
  if (node.kind === 'ident') {
    return node.text;
  }
  if (node.kind === 'word' && !CLAUSE_WORDS.has(node.text)) {
    return node.text;
  }
  return undefined;
}

/**
 * `namespaced`: the tables that have a `namespace_id` column. Returns the namespaced tables the
 * statement touches without a constraint on their `namespace_id`.
 */
export function checkNamespaceScope(sql: string, namespaced: ReadonlySet<string>): ScopeVerdict {
  const nodes = nest(tokenize(sql));
  const first = nodes[0];
  if (first === undefined || (first.kind === 'word' && NOT_CHECKED.has(first.text))) {
    return { unscoped: [] };
  }
  const unscoped = new Set<string>();
  checkScope(nodes, namespaced, unscoped);
  return { unscoped: [...unscoped].sort() };
}

interface Scope {
  /** alias or table name → table name, for the namespaced tables of this scope. */
  readonly tables: Map<string, string>;
  /** Tables (by alias) whose namespace_id is compared with a value. */
  readonly constrained: Set<string>;
  /** Pairs of aliases whose namespace_ids are compared with each other. */
  readonly links: [string, string][];
  insertTable: string | undefined;
  insertHasNamespace: boolean;
}

function checkScope(nodes: readonly Node[], namespaced: ReadonlySet<string>, out: Set<string>) {
  const scope: Scope = {
    tables: new Map(),
    constrained: new Set(),
    links: [],
    insertTable: undefined,
    insertHasNamespace: false,
  };
  walk(nodes, { section: 'start', scope, namespaced, out });
  if (scope.insertTable !== undefined && !scope.insertHasNamespace) {
    out.add(scope.insertTable);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const [a, b] of scope.links) {
      if (scope.constrained.has(a) !== scope.constrained.has(b)) {
        scope.constrained.add(a);
        scope.constrained.add(b);
        grew = true;
      }
    }
  }
  for (const [alias, table] of scope.tables) {
    if (!scope.constrained.has(alias)) {
      out.add(table);
    }
  }
}

interface WalkState {
  section: string;
  readonly scope: Scope;
  readonly namespaced: ReadonlySet<string>;
  readonly out: Set<string>;
}

function walk(nodes: readonly Node[], state: WalkState): void {
  let expectTable = false;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as Node;
    if (node.kind === 'group' && isSubquery(node)) {
      checkScope(node.nodes, state.namespaced, state.out);
      expectTable = false;
      i = skipAlias(nodes, i);
      continue;
    }
    if (node.kind === 'group') {
      if (state.section === 'into' && state.scope.insertTable !== undefined) {
        state.scope.insertHasNamespace ||= node.nodes.some((n) => nameOf(n) === 'namespace_id');
        state.section = 'columns';
        continue;
      }
      const outer = state.section;
      walk(node.nodes, state);
      state.section = outer;
      continue;
    }
    if (node.kind === 'word' && SECTION_WORDS.has(node.text)) {
      const section = sectionAfter(nodes, i, state.section);
      if (section !== undefined) {
        state.section = section;
        expectTable = ['from', 'join', 'update', 'into'].includes(section);
        continue;
      }
    }
    if (expectTable) {
      const table = nameOf(node);
      if (table !== undefined) {
        i = addTable(nodes, i, table, state);
        expectTable = isPunct(nodes[i + 1], ',');
        if (expectTable) {
          i++;
        }
        continue;
      }
      expectTable = false;
    }
    if (FILTER_SECTIONS.has(state.section)) {
      notePredicate(nodes, i, state.scope);
    }
  }
}

/** The section a section word opens, or undefined when it opens none here. */
function sectionAfter(nodes: readonly Node[], i: number, current: string): string | undefined {
  const word = (nodes[i] as Token).text;
  if (word === 'for') {
    return 'for';
  }
  if (word === 'update') {
    // `FOR UPDATE`, `ON DUPLICATE KEY UPDATE`, `DO UPDATE SET`: not a table list.
    return current === 'start' ? 'update' : 'tail';
  }
  if (word === 'delete' || word === 'insert' || word === 'replace') {
    return current === 'start' ? word : undefined;
  }
  if (word === 'into') {
    return current === 'insert' || current === 'replace' ? 'into' : undefined;
  }
  if (word === 'on' && (current === 'tail' || current === 'values' || current === 'columns')) {
    return 'tail'; // ON DUPLICATE KEY / ON CONFLICT
  }
  if (word === 'set' && current === 'tail') {
    return 'tail';
  }
  return word;
}

/** Records `table` (at `i`) with its alias; returns the index of its last token. */
function addTable(nodes: readonly Node[], i: number, name: string, state: WalkState): number {
  let table = name;
  let at = i;
  if (isPunct(nodes[at + 1], '.') && nameOf(nodes[at + 2]) !== undefined) {
    table = nameOf(nodes[at + 2]) as string; // schema.table
    at += 2;
  }
  if (state.section === 'into') {
    state.scope.insertTable = state.namespaced.has(table) ? table : undefined;
    return at;
  }
  let alias = table;
  if (isWord(nodes[at + 1], 'as') && nameOf(nodes[at + 2]) !== undefined) {
    alias = nameOf(nodes[at + 2]) as string;
    at += 2;
  } else if (nameOf(nodes[at + 1]) !== undefined) {
    alias = nameOf(nodes[at + 1]) as string;
    at += 1;
  }
  if (state.namespaced.has(table)) {
    state.scope.tables.set(alias, table);
  }
  return at;
}

function skipAlias(nodes: readonly Node[], i: number): number {
  if (isWord(nodes[i + 1], 'as') && nameOf(nodes[i + 2]) !== undefined) {
    return i + 2;
  }
  return nameOf(nodes[i + 1]) !== undefined ? i + 1 : i;
}

/** A `namespace_id` column reference ending at `i`: its qualifier ('' when none). */
function columnAt(nodes: readonly Node[], i: number): string | undefined {
  if (nameOf(nodes[i]) !== 'namespace_id') {
    return undefined;
  }
  if (isPunct(nodes[i - 1], '.')) {
    return nameOf(nodes[i - 2]) ?? '';
  }
  return '';
}

/** At a `namespace_id` reference: a comparison with a value, or with another one. */
function notePredicate(nodes: readonly Node[], i: number, scope: Scope): void {
  const qualifier = columnAt(nodes, i);
  if (qualifier === undefined || isPunct(nodes[i + 1], '.')) {
    return;
  }
  const before = qualifier === '' ? i - 1 : i - 3;
  const op = nodes[i + 1];
  let other: Node | undefined;
  let otherAt = -1;
  if (isPunct(op, '=') || isWord(op, 'in')) {
    other = nodes[i + 2];
    otherAt = i + 2;
    if (isPunct(op, '=') && nameOf(other) !== undefined && isPunct(nodes[i + 3], '.')) {
      otherAt = i + 4;
      other = nodes[otherAt];
    }
  } else if (isPunct(nodes[before], '=')) {
    otherAt = before - 1;
    other = nodes[otherAt];
  } else {
    return;
  }
  if (other === undefined) {
    return;
  }
  const otherQualifier = columnAt(nodes, otherAt);
  if (otherQualifier !== undefined) {
    if (otherQualifier !== '' && qualifier !== '') {
      scope.links.push([qualifier, otherQualifier]);
    }
    return;
  }
  if (other.kind === 'param' || other.kind === 'number' || other.kind === 'string') {
    mark(scope, qualifier);
  } else if (other.kind === 'group' && isWord(op, 'in')) {
    mark(scope, qualifier);
  }
}

function mark(scope: Scope, qualifier: string): void {
  if (qualifier === '') {
    for (const alias of scope.tables.keys()) {
      scope.constrained.add(alias);
    }
    return;
  }
  scope.constrained.add(qualifier);
}

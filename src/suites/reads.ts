/**
 * What the verifier function an entry routes to reads of the entry: the fields it subscripts
 * (`item["x"]`) on every path before it can return, so a task without them cannot be graded.
 * A read in a lambda, a branch not taken on every path, a short-circuited operand or after an
 * early return does not count; `.get("x")` and guarded reads never do. task-schema derives
 * "required" from this when an entry is bound.
 */
import path from 'node:path';
import type { PyNode } from '../lang/python/tree.js';
import type { PythonProject } from '../lang/python/types.js';
import type { VerifierBinding } from './types.js';

interface FieldRead {
  /** 1-based line of the read in `file`. */
  line: number;
  /** Source text of the read (`eval_item["key"]`). */
  text: string;
}

export interface EntryReads {
  /** Absolute path of the verifier file. */
  file: string;
  qualname: string;
  /** Fields read unguarded on every path of the function (first such read). */
  required: Map<string, FieldRead>;
}

/** Nodes whose inner code does not run (or not on every path) when the enclosing statement runs. */
const DEFERRED = new Set(['lambda', 'function_definition', 'class_definition', 'conditional_expression']);
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

function stringValue(n: PyNode | null): string | undefined {
  if (!n || n.type !== 'string') return undefined;
  const m = /^[rRbBuU]?(['"])(.*)\1$/s.exec(n.text);
  return m && !/[\\{]/.test(m[2]!) ? m[2] : undefined;
}

/** What a walk counts as a read: the key a node reads (a subscript), and whether a condition mentions the value. */
export interface ReadMatcher {
  key(n: PyNode): string | undefined;
  mentions(n: PyNode): boolean;
}

function paramMatcher(param: string): ReadMatcher {
  const mentions = (n: PyNode): boolean => (n.type === 'identifier' && n.text === param) || n.namedChildren.some(mentions);
  return { key: (n) => subscriptField(n, param), mentions };
}

/** The nodes `m` counts as reads that run on every path through `body` (past guards on other values with `pastOtherGuards`). */
export function readsOnEveryPath(body: PyNode, m: ReadMatcher, pastOtherGuards: boolean): PyNode[] {
  return blockReads(body, m, pastOtherGuards).reads;
}

/** `param["lit"]` → "lit". */
function subscriptField(n: PyNode, param: string): string | undefined {
  if (n.type !== 'subscript') return undefined;
  const v = n.childForFieldName('value');
  return v?.type === 'identifier' && v.text === param ? stringValue(n.childForFieldName('subscript')) : undefined;
}

/** Subscript reads under `n` that run whenever `n` runs (not in lambdas, branches, short-circuited operands). */
function unconditionalReads(n: PyNode, m: ReadMatcher, out: PyNode[]): void {
  if (DEFERRED.has(n.type)) {
    if (n.type === 'conditional_expression') {
      const cond = n.namedChildren[1];
      if (cond) unconditionalReads(cond, m, out);
    }
    return;
  }
  if (COMPREHENSIONS.has(n.type)) {
    // only the first `for … in <iterable>` runs for sure
    const forClause = n.namedChildren.find((c) => c.type === 'for_in_clause');
    const iter = forClause?.childForFieldName('right');
    if (iter) unconditionalReads(iter, m, out);
    return;
  }
  if (n.type === 'boolean_operator') {
    const left = n.childForFieldName('left');
    if (left) unconditionalReads(left, m, out);
    return;
  }
  if (n.type === 'assignment') {
    // `param["k"] = v` writes the key: only the value (and an index expression) is read
    const left = n.childForFieldName('left');
    for (const c of n.children) {
      if (c === left && m.key(c) !== undefined) continue;
      unconditionalReads(c, m, out);
    }
    return;
  }
  if (m.key(n) !== undefined) out.push(n);
  for (const c of n.children) unconditionalReads(c, m, out);
}

function containsExit(n: PyNode): boolean {
  if (n.type === 'return_statement' || n.type === 'raise_statement') return true;
  if (DEFERRED.has(n.type) && n.type !== 'conditional_expression') return false;
  return n.children.some(containsExit);
}

/** Subscript reads on every path through a statement, and whether some path leaves the function in it. */
function statementReads(stmt: PyNode, m: ReadMatcher): { reads: PyNode[]; exits: boolean } {
  const header = (n: PyNode | null) => {
    const out: PyNode[] = [];
    if (n) unconditionalReads(n, m, out);
    return out;
  };
  switch (stmt.type) {
    case 'if_statement': {
      // the condition always runs; a branch's reads count when every branch (an else included) has them
      const reads = header(stmt.childForFieldName('condition'));
      const branches: PyNode[] = [];
      const conds: PyNode[] = [];
      const body = stmt.childForFieldName('consequence');
      if (body) branches.push(body);
      let hasElse = false;
      for (const alt of stmt.childrenForFieldName('alternative')) {
        if (alt.type === 'elif_clause') {
          const c = alt.childForFieldName('condition');
          if (c) conds.push(c);
          const b = alt.childForFieldName('consequence');
          if (b) branches.push(b);
        } else {
          hasElse = true;
          const b = alt.childForFieldName('body');
          if (b) branches.push(b);
        }
      }
      const results = branches.map((b) => blockReads(b, m));
      const exits = results.some((r) => r.exits);
      if (hasElse && conds.length === 0 && results.length > 0) {
        const byField = results.map((r) => new Set(r.reads.map((n) => m.key(n))));
        for (const n of results[0]!.reads) if (byField.every((f) => f.has(m.key(n)))) reads.push(n);
      }
      return { reads, exits };
    }
    case 'while_statement':
      return { reads: header(stmt.childForFieldName('condition')), exits: containsExit(stmt) };
    case 'for_statement':
      return { reads: header(stmt.childForFieldName('right')), exits: containsExit(stmt) };
    case 'with_statement': {
      const reads: PyNode[] = [];
      for (const c of stmt.children) if (c.type === 'with_clause') unconditionalReads(c, m, reads);
      const body = stmt.childForFieldName('body');
      const inner = body ? blockReads(body, m) : { reads: [], exits: false };
      return { reads: [...reads, ...inner.reads], exits: inner.exits };
    }
    case 'expression_statement':
    case 'assignment':
    case 'augmented_assignment':
    case 'return_statement':
    case 'assert_statement':
    case 'delete_statement': {
      const reads: PyNode[] = [];
      unconditionalReads(stmt, m, reads);
      return { reads, exits: stmt.type === 'return_statement' };
    }
    default:
      // try/match/nested definitions and anything else: no reads counted, exits as written
      return { reads: [], exits: containsExit(stmt) };
  }
}

/** Reads on every path through a block: a statement's reads count while no earlier statement may leave. */
function blockReads(block: PyNode, m: ReadMatcher, pastOtherGuards = false): { reads: PyNode[]; exits: boolean } {
  const reads: PyNode[] = [];
  for (const stmt of block.namedChildren) {
    if (stmt.type === 'comment') continue;
    const r = statementReads(stmt, m);
    reads.push(...r.reads);
    if (pastOtherGuards && otherGuard(stmt, m)) continue;
    if (r.exits || stmt.type === 'raise_statement') return { reads, exits: true };
  }
  return { reads, exits: false };
}

/** `if <condition not about param>: … return` with no other branch: a run that does not take it goes on. */
function otherGuard(stmt: PyNode, m: ReadMatcher): boolean {
  if (stmt.type !== 'if_statement' || stmt.childrenForFieldName('alternative').length) return false;
  const cond = stmt.childForFieldName('condition');
  return !cond || !m.mentions(cond);
}

const cache = new WeakMap<PythonProject, Map<string, EntryReads | null>>();

/** The entry fields the bound verifier function reads (its first parameter after `self` is the entry). */
export function entryReads(python: PythonProject, binding: VerifierBinding): EntryReads | undefined {
  return paramReads(python, binding, (params, isMethod) => (isMethod ? params[1] : params[0]), false);
}

/**
 * The keys a function reads from one of its parameters (`param["key"]`) on every path before it can
 * return: a dict the caller passes without one of them raises KeyError. `pick` chooses the parameter
 * from the function's parameter names (`self` included for a method). With `pastOtherGuards`, an
 * early return on a condition that does not involve the parameter (`if result is None: return 0`)
 * does not end the walk: every run that gets past it reads the keys after it.
 */
export function paramReads(
  python: PythonProject,
  binding: VerifierBinding,
  pick: (params: readonly string[], isMethod: boolean) => string | undefined,
  pastOtherGuards: boolean,
): EntryReads | undefined {
  let byKey = cache.get(python);
  if (!byKey) cache.set(python, (byKey = new Map()));
  const a = python.analysis(binding.file);
  const fn = a?.functionByQualname(binding.qualname);
  const param = fn ? pick(fn.params, !!fn.classNode) : undefined;
  if (!a || !fn || !param) return undefined;
  const key = `${binding.file}\0${binding.qualname}\0${param}\0${pastOtherGuards ? 1 : 0}`;
  const hit = byKey.get(key);
  if (hit !== undefined) return hit ?? undefined;
  let result: EntryReads | null = null;
  const body = fn.node.childForFieldName('body');
  if (body) {
    const required = new Map<string, FieldRead>();
    for (const n of blockReads(body, paramMatcher(param), pastOtherGuards).reads) {
      const f = subscriptField(n, param)!;
      if (!required.has(f)) required.set(f, { line: a.line(n), text: n.text });
    }
    result = { file: binding.file, qualname: binding.qualname, required };
  }
  byKey.set(key, result);
  return result ?? undefined;
}

/** "`sci/TeXstudio/task.py:40` (`_eval_file`) reads `eval_item["path"]`" for messages. */
export function describeRead(reads: EntryReads, field: string, root: string): string | undefined {
  const r = reads.required.get(field);
  if (!r) return undefined;
  const rel = path.relative(root, reads.file).split(path.sep).join('/');
  return `\`${reads.qualname}\` reads \`${r.text}\` without a default (${rel}:${r.line})`;
}

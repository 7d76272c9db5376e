/**
 * order-dependent-match — the first match of dict/set/directory iteration selects the item the
 * verdict is computed from (VER-003).
 */
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import { field, named, unparen, walk, firstNamed, type PyNode } from '../../src/lang/python/tree.js';
import { unorderedIteration, callOf } from '../../src/lang/python/facts.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { literalDictKeys } from '../../src/lang/python/literal-values.js';
import { jsonStatePath } from '../../src/lang/python/value-origin.js';
import { appStateNear, type AppState } from '../../src/lang/js/app-state.js';

type Msg = 'loop' | 'first';
type Ctx = Parameters<PythonVisitor<Msg>>[1];

const CONST = new Set(['true', 'false', 'none', 'integer', 'float', 'string']);

/**
 * Why iterating `expr` has no intended order, unless it is a dict written out in the code
 * (`{"rr_001": …, "rr_002": …}.items()`, held directly or by a local or module name that nothing
 * changes): Python iterates a dict in insertion order, and the code fixes that order.
 */
function unordered(a: PythonAnalysis, expr: PyNode): string | undefined {
  const source = unorderedIteration(a, expr);
  if (!source?.startsWith('a dict')) return source;
  const u = unparen(expr);
  const call = callOf(a, u);
  const dict = call && ['items', 'keys', 'values'].includes(call.method) ? call.receiver : u;
  return dict && literalDictKeys(a, dict) ? undefined : source;
}

/**
 * The node sits in a branch that cannot run on the application's state: under `if isinstance(x, dict):`
 * (or `elif`) where `x` is read from the state the app serves and the app's code only ever writes an
 * array there (or `list` where it writes an object) — the defensive branch for a shape the app never has.
 */
function deadStateBranch(a: PythonAnalysis, n: PyNode, app: AppState | undefined): boolean {
  if (!app) return false;
  for (let c: PyNode = n, p = n.parent; p; c = p, p = p.parent) {
    if (p.type === 'function_definition') return false;
    if ((p.type !== 'if_statement' && p.type !== 'elif_clause') || field(p, 'consequence') !== c) continue;
    const cond = unparen(field(p, 'condition') ?? p);
    const call = cond.type === 'call' ? a.call(cond) : undefined;
    if (call?.qualified !== 'isinstance' || call.args.length !== 2) continue;
    const t = a.src(call.args[1]!);
    const want = t === 'dict' ? 'object' : t === 'list' ? 'array' : undefined;
    const kind = want ? stateKind(a, call.args[0]!, app, 0) : undefined;
    if (kind && kind !== want) return true;
  }
  return false;
}

/**
 * The kind of a value read from the app's state: what the app writes at its path, or — for a top-level
 * key the state the app sends does not have — the kind of the reader's default (`state.get("groups", [])`).
 */
function stateKind(a: PythonAnalysis, e: PyNode, app: AppState, depth: number): 'array' | 'object' | undefined {
  if (depth > 3) return undefined;
  const sp = jsonStatePath(a, e);
  if (!sp) {
    const u = unparen(e);
    return u.type === 'list' || u.type === 'list_comprehension' ? 'array' : u.type === 'dictionary' || u.type === 'dictionary_comprehension' ? 'object' : undefined;
  }
  const kind = app.kind(sp.path);
  if (kind) return kind;
  const keys = sp.path.length === 1 ? app.postedKeys() : undefined;
  if (!keys || keys.has(sp.path[0]!) || sp.defaults.length !== 1) return undefined;
  return stateKind(a, sp.defaults[0]!, app, depth + 1);
}

/** Names bound by a loop/comprehension target. */
function targetNames(a: PythonAnalysis, t: PyNode | undefined): Set<string> {
  const out = new Set<string>();
  if (t) walk(t, (x) => { if (x.type === 'identifier') out.add(a.src(x)); });
  return out;
}
function uses(a: PythonAnalysis, e: PyNode, names: Set<string>): boolean {
  let hit = false;
  walk(e, (x) => {
    if (hit) return false;
    if (x.type === 'identifier' && names.has(a.src(x)) && !(x.parent?.type === 'attribute' && x.field === 'attribute')) hit = true;
    return undefined;
  });
  return hit;
}

/**
 * The verdict part of a returned value: the first item of `return False, f"… {name} …"` (a verdict
 * with its message), else the value. A constant verdict returned from inside a loop does not depend on
 * which item the loop was at: the loop is a fail-fast (or pass-fast) check over every item.
 */
function verdictPart(v: PyNode): PyNode {
  const u = unparen(v);
  return (u.type === 'tuple' || u.type === 'expression_list') && named(u).length >= 1 ? unparen(named(u)[0]!) : u;
}

/** The loop stops at the first match and keeps something derived from the matched item. */
function selectsFirstMatch(a: PythonAnalysis, body: PyNode, names: Set<string>): boolean {
  let found = false;
  const visitBlock = (block: PyNode) => {
    const stmts = named(block);
    stmts.forEach((s, i) => {
      if (found) return;
      if (s.type === 'return_statement') {
        const v = firstNamed(s);
        if (v && !CONST.has(verdictPart(v).type) && uses(a, v, names)) found = true;
      } else if (s.type === 'break_statement') {
        // an assignment from the loop variables before the break, in the same block
        for (let j = 0; j < i; j++) {
          const p = stmts[j]!;
          const asg = p.type === 'expression_statement' ? firstNamed(p) : undefined;
          if (asg?.type === 'assignment') {
            const r = field(asg, 'right');
            if (r && uses(a, r, names)) found = true;
          }
        }
      } else if (s.type === 'for_statement' || s.type === 'while_statement' || s.type === 'function_definition' || s.type === 'class_definition') {
        // a nested loop's break belongs to it; a nested def is another function
      } else {
        for (const k of s.children) {
          if (k.type === 'block') visitBlock(k);
          else if (k.type === 'elif_clause' || k.type === 'else_clause' || k.type === 'except_clause' || k.type === 'finally_clause') {
            const b = k.children.find((x) => x.type === 'block');
            if (b) visitBlock(b);
          }
        }
      }
    });
  };
  visitBlock(body);
  return found;
}

/** The iterable a list is built from by filtering: `[x for x in src if …]`, `list(filter(f, src))`, or `list(src)`. */
function filteredSource(a: PythonAnalysis, v: PyNode): PyNode | undefined {
  if (v.type === 'list_comprehension') {
    if (!named(v).some((k) => k.type === 'if_clause') || filtersById(a, v)) return undefined;
    const clause = named(v).find((k) => k.type === 'for_in_clause');
    return clause ? field(clause, 'right') : undefined;
  }
  const lc = callOf(a, v);
  if ((lc?.qualified === 'list' || lc?.qualified === 'tuple') && lc.args[0]) {
    const inner = callOf(a, lc.args[0]);
    return inner?.qualified === 'filter' && inner.args[1] ? inner.args[1] : lc.args[0];
  }
  return undefined;
}

/** A name, attribute or key that identifies a record (`id`, `uuid`, `guid`, `…_id`, `…Id`). */
const ID_KEY = /^(id|uuid|guid|[A-Za-z0-9]+_id|[a-z][A-Za-z0-9]*Id)$/;

function isIdRead(a: PythonAnalysis, e0: PyNode): boolean {
  const e = unparen(e0);
  if (e.type === 'identifier') return ID_KEY.test(a.src(e));
  if (e.type === 'attribute') return ID_KEY.test(a.src(field(e, 'attribute') ?? e));
  if (e.type === 'subscript') return /^["']([^"']+)["']$/.test(a.src(field(e, 'subscript') ?? e)) && ID_KEY.test(a.src(field(e, 'subscript')!).slice(1, -1));
  if (e.type === 'call') {
    const f = field(e, 'function');
    const k = named(field(e, 'arguments') ?? e)[0];
    return f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get' && !!k && /^["']([^"']+)["']$/.test(a.src(k)) && ID_KEY.test(a.src(k).slice(1, -1));
  }
  return false;
}

/**
 * The filter of a comprehension selects by equality with a record id (`note.parent_id == value`,
 * `r["id"] == wanted`): ids identify one record, so at most one item matches and there is no first
 * among several to pick. Only a filter that is that one equality (an `and` with more conditions too;
 * an `or` may match other records, so it is not unique).
 */
function filtersById(a: PythonAnalysis, comp: PyNode): boolean {
  const clause = named(comp).find((k) => k.type === 'if_clause');
  const cond = clause ? named(clause)[0] : undefined;
  const byId = (c0: PyNode | undefined): boolean => {
    const c = c0 ? unparen(c0) : undefined;
    if (!c) return false;
    if (c.type === 'boolean_operator') return a.src(c).slice((field(c, 'left') ?? c).end - c.start).trimStart().startsWith('and') && (byId(field(c, 'left')) || byId(field(c, 'right')));
    if (c.type !== 'comparison_operator') return false;
    const kids = named(c);
    return kids.length === 2 && a.text.slice(kids[0]!.end, kids[1]!.start).trim() === '==' && kids.some((k) => isIdRead(a, k));
  };
  return byId(cond);
}

/** The pick sits under `if len(name) == 1:` (or after `assert len(name) == 1`): the match is unique. */
function checkedUnique(a: PythonAnalysis, n: PyNode, name: string): boolean {
  const re = new RegExp(`\\blen\\(\\s*${name}\\s*\\)\\s*(==\\s*1|<\\s*2|<=\\s*1)(?!\\d)`);
  for (let c: PyNode = n, p = n.parent; p; c = p, p = p.parent) {
    if (p.type === 'function_definition') break;
    if ((p.type === 'if_statement' || p.type === 'elif_clause') && c.field === 'consequence' && re.test(a.src(field(p, 'condition')!))) return true;
    if (p.type === 'block') {
      for (const s of named(p)) {
        if (s.start >= c.start) break;
        if (s.type === 'assert_statement' && re.test(a.src(s))) return true;
      }
    }
  }
  return false;
}

export default defineRule<Msg>({
  meta: {
    id: 'order-dependent-match',
    description: 'The first match found while iterating a dict, set or directory listing decides the verdict, so it depends on iteration order.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      loop: {
        what: 'This loop over {{source}} stops at the first item that matches and grades only that item.',
        why: 'When several items match, the verdict depends on insertion or listing order.',
        fix: 'Evaluate every matching item (accept when any candidate satisfies the expected value), or sort the candidates by a meaningful key.',
      },
      first: {
        what: '`{{expr}}` takes the first match of {{source}}.',
        why: 'When several items match, the verdict depends on insertion or listing order.',
        fix: 'Evaluate every matching item, or sort the candidates by a meaningful key.',
      },
    },
    docs: {
      whatItDoes: 'Flags `for` loops over dict views, sets and directory listings that break or return on the first match while keeping something derived from the matched item, and `next(...)`, `[...][0]` or `list(...)[0]` over the same sources. Not flagged: a loop in a branch the application\'s state never takes (`elif isinstance(styles, dict):` where the app that serves the state only ever writes an array there (or, for a top-level key the state it sends has no such key, the reader\'s default `state.get("groups", [])` is a list; a record picked in either branch keeps its path), as read from its JavaScript: `lang/js/app-state.ts`), a loop that returns a constant verdict (`return False, f"… {name} …"`: a fail-fast check over every item, whichever fails first), iteration of a dict written out in the code and never changed (its order is the order written), and a filtered list selected by equality with a record id (`[k for k, v in m.items() if note.parent_id == v][0]`: at most one item matches).',
      why: 'When two serialized keys match a `find` predicate, the verifier grades whichever comes first in the state dump (VER-003): the same correct agent passes or fails depending on insertion order.',
      references: ['VER-003'],
    },
    confirm: {
      oracle: 'order-dependent-match',
      description: 'Runs the function on the same matching items in two insertion orders; two different verdicts confirm the order dependence.',
    },
  },
  create() {
    const report = (c: Ctx, messageId: Msg, at: PyNode, source: string) => {
      const a = c.python;
      const fn = a.functionAt(at);
      c.report({
        messageId,
        data: { source, expr: a.src(at) },
        at,
        control: { oracle: 'order-dependent-match', file: a.path, line: a.line(at), qualname: fn?.qualname ?? '' },
      });
    };
    function make() {
      return {
        for_statement(n: Parameters<PythonVisitor<Msg>>[0], c: Ctx) {
          const a = c.python;
          const right = field(n, 'right');
          const body = field(n, 'body');
          if (!right || !body) return;
          const source = unordered(a, right);
          if (!source) return;
          if (deadStateBranch(a, n, appStateNear(c.project.files, a.path, c.project.root))) return;
          if (!selectsFirstMatch(a, body, targetNames(a, field(n, 'left')))) return;
          report(c, 'loop', right, source);
        },
        call(node: Parameters<PythonVisitor<Msg>>[0], c: Ctx) {
          const a = c.python;
          const call = a.call(node);
          if (!call || call.qualified !== 'next' || !call.args[0]) return;
          let src: PyNode | undefined;
          const arg = unparen(call.args[0]);
          if (arg.type === 'generator_expression') {
            const body = field(arg, 'body');
            if (body && CONST.has(unparen(body).type)) return;
            const clause = named(arg).find((k) => k.type === 'for_in_clause');
            src = clause ? field(clause, 'right') : undefined;
          } else {
            const it = callOf(a, arg);
            if (it?.qualified === 'iter') src = it.args[0];
          }
          const source = src && unordered(a, src);
          if (source) report(c, 'first', call.node, source);
        },
        subscript(n: Parameters<PythonVisitor<Msg>>[0], c: Ctx) {
          const a = c.python;
          const idx = field(n, 'subscript');
          const value = field(n, 'value');
          if (!idx || !value || a.src(idx) !== '0') return;
          // the filtered list written inline, or held by a local first (`keys = [...]; keys[0]`)
          const v0 = unparen(value);
          if (v0.type === 'identifier' && checkedUnique(a, n, a.src(v0))) return;
          const candidates = v0.type === 'identifier' ? a.valueSources(v0).filter((x) => x !== v0) : [v0];
          for (const v of candidates.map(unparen)) {
            const src = filteredSource(a, v);
            const source = src && unordered(a, src);
            if (source) return report(c, 'first', n, source);
          }
        },
      };
    }
    return { python: make() };
  },
});

/**
 * first-match-lambda — an embedded lambda that takes "the first" item of a
 * filtered or unordered collection (`[…][0]`, `next(…)` without a default,
 * `list(d.keys())[0]`) or picks a record out of a state array by position.
 */
import type { PyNode as Node } from '../../src/lang/python/tree.js';
import { defineRule } from '../../src/contract/rule.js';
import { unparen } from '../../src/suites/lambda.js';

type Msg = 'firstOfFiltered' | 'nextNoDefault' | 'positionalRecord';

const UNORDERED_VIEWS = new Set(['keys', 'values', 'items']);

function isIntIndex(n: Node | null): n is Node {
  const e = unparen(n);
  if (!e) return false;
  if (e.type === 'integer') return true;
  return e.type === 'unary_operator' && e.text.replace(/\s+/g, '') === '-1';
}

/** What kind of collection a subscripted value is, when it is one whose order or length is not guaranteed. */
function filteredCollection(v: Node | null): string | undefined {
  const e = unparen(v);
  if (!e) return undefined;
  if (e.type === 'list_comprehension') return e.namedChildren.some((c) => c?.type === 'if_clause') ? 'a filtered list comprehension' : 'a list comprehension';
  if (e.type === 'call') {
    const fn = e.childForFieldName('function');
    const args = e.childForFieldName('arguments');
    if (fn?.type === 'identifier' && (fn.text === 'list' || fn.text === 'tuple') && args) {
      const a = unparen(args.namedChildren[0] ?? null);
      if (!a) return undefined;
      if (a.type === 'generator_expression') return `${fn.text}(<generator>)`;
      if (a.type === 'call') {
        const f2 = a.childForFieldName('function');
        if (f2?.type === 'identifier' && (f2.text === 'filter' || f2.text === 'map')) return `${fn.text}(${f2.text}(…))`;
        if (f2?.type === 'attribute' && UNORDERED_VIEWS.has(f2.childForFieldName('attribute')?.text ?? '')) return `${fn.text}(….${f2.childForFieldName('attribute')!.text}())`;
      }
      if (a.type === 'set_comprehension' || a.type === 'set') return `${fn.text}(<set>)`;
    }
  }
  return undefined;
}

/** `x[0]` whose result is used as a record: `x[0]['name']` or `x[0].name`. */
function usedAsRecord(sub: Node): boolean {
  const p = sub.parent;
  if (!p) return false;
  if (p.type === 'subscript' && p.childForFieldName('value')?.id === sub.id) {
    const idx = unparen(p.childForFieldName('subscript'));
    return !!idx && idx.type === 'string';
  }
  return p.type === 'attribute' && p.childForFieldName('object')?.id === sub.id;
}

/** A member name that denotes a collection of like records (`layers`, `models`, `windows`): plural. A singular or
 *  structural name (`_data`, `center`, `position`) is a fixed-layout tuple whose positions carry meaning. */
function namesRecordArray(v: Node): boolean {
  let name: string | undefined;
  if (v.type === 'subscript') {
    const idx = unparen(v.childForFieldName('subscript'));
    name = idx?.type === 'string' ? idx.text.slice(1, -1) : undefined;
  } else if (v.type === 'attribute') name = v.childForFieldName('attribute')?.text;
  else return true;
  return !!name && /[a-z]s$/i.test(name) && !/(ss|us|is)$/i.test(name);
}

/** The position `j` that `x[j] == <literal>` (either side) tests, for the identifier `x` and an integer `j`. */
function taggedPosition(n: Node | null, x: string): string | undefined {
  const e = unparen(n);
  if (e?.type !== 'comparison_operator') return undefined;
  const ops = e.children.filter((c) => !c.named).map((c) => c.type);
  const [l, r] = e.namedChildren.map((c) => unparen(c));
  if (ops.length !== 1 || ops[0] !== '==' || !l || !r) return undefined;
  const literal = (c: Node) => ['string', 'integer', 'float', 'true', 'false', 'none'].includes(c.type);
  const position = (c: Node) => {
    const idx = c.childForFieldName('subscript');
    return c.type === 'subscript' && c.childForFieldName('value')?.type === 'identifier' && c.childForFieldName('value')!.text === x && isIntIndex(idx) ? unparen(idx)!.text : undefined;
  };
  return literal(r) ? position(l) : literal(l) ? position(r) : undefined;
}

const COMPREHENSIONS = new Set(['list_comprehension', 'generator_expression', 'set_comprehension', 'dictionary_comprehension']);
const isAnd = (e: Node) => e.type === 'boolean_operator' && e.children.some((k) => k.type === 'and');

/** The leaves of an and-chain (`a and b and c`), each of which holds when the chain does. */
function andLeaves(c: Node | null): Node[] {
  const e = unparen(c);
  if (!e) return [];
  return isAnd(e) ? [...andLeaves(e.childForFieldName('left')), ...andLeaves(e.childForFieldName('right'))] : [e];
}

/** The conditions that hold where `node` is evaluated, up to the enclosing lambda: those and-ed before it
 *  (`a and b and <node>`), the `if` clauses of a comprehension whose element it is, the test of a conditional
 *  expression whose first branch it is. */
function holdingBefore(node: Node): Node[] {
  const out: Node[] = [];
  for (let n: Node = node, p = n.parent; p && p.type !== 'lambda'; n = p, p = p.parent) {
    if (isAnd(p) && p.childForFieldName('right')?.id === n.id) out.push(...andLeaves(p.childForFieldName('left')));
    else if (COMPREHENSIONS.has(p.type) && p.childForFieldName('body')?.id === n.id) {
      for (const c of p.namedChildren) if (c.type === 'if_clause') out.push(...andLeaves(c.namedChildren[0] ?? null));
    } else if (p.type === 'conditional_expression' && p.namedChildren[0]?.id === n.id) out.push(...andLeaves(p.namedChildren[1] ?? null));
  }
  return out;
}

/** `len(x) == 1` (either side) for the identifier `x`. */
function singleElement(n: Node, x: string): boolean {
  if (n.type !== 'comparison_operator') return false;
  const ops = n.children.filter((c) => !c.named).map((c) => c.type);
  const [l, r] = n.namedChildren.map((c) => unparen(c));
  if (ops.length !== 1 || ops[0] !== '==' || !l || !r) return false;
  const len = (c: Node) => c.type === 'call' && c.childForFieldName('function')?.text === 'len' && unparen(c.childForFieldName('arguments')?.namedChildren[0] ?? null)?.text === x;
  return (len(l) && r.text === '1') || (len(r) && l.text === '1');
}

/**
 * `x[i]` that is no pick among like records, by what the lambda tested first: what another position of `x`
 * holds (`cmd[0] == 'd.vect' and cmd[1][…]`: a record of fixed layout, a command and its arguments), or that
 * `x` has exactly one element (`len(key) == 1 and key[0][…]`).
 */
function notAPick(node: Node, x: Node): boolean {
  if (x.type !== 'identifier') return false;
  const index = unparen(node.childForFieldName('subscript'))?.text;
  return holdingBefore(node).some((c) => {
    const j = taggedPosition(c, x.text);
    return (j !== undefined && j !== index) || singleElement(c, x.text);
  });
}

/** The picks of one verifier entry (its `key` and `pred` lambdas) are one defect: one finding per entry. */
const defect = (code: { entry?: { pointer: string }; ref: { pointer: string } }) => code.entry?.pointer ?? code.ref.pointer;

export default defineRule<Msg>({
  meta: {
    id: 'first-match-lambda',
    description: 'An embedded lambda that takes the first match of a filtered list or indexes a state array by position.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['json'],
    confirm: { oracle: 'first-match-lambda',
      positional: true, description: 'Evaluates the lambda on a state with no match and on the matches reordered; confirmed on IndexError or a verdict that changes with the order.' },
    messages: {
      firstOfFiltered: {
        what: 'The `{{role}}` lambda takes item {{index}} of {{what}}.',
        why: 'It raises IndexError when nothing matches and depends on iteration order when several do, so the verdict can flip between equivalent states.',
        fix: 'Check every match (`any(...)` or `all(...)` over them), or require exactly one (`len(...) == 1`) before reading it.',
      },
      nextNoDefault: {
        what: 'The `{{role}}` lambda calls `next(...)` without a default.',
        why: 'It raises StopIteration when nothing matches and returns whichever match iterates first when several do.',
        fix: 'Pass a default (`next(..., None)`) and handle it, or check all matches with `any(...)`.',
      },
      positionalRecord: {
        what: 'The `{{role}}` lambda picks record {{index}} of a state array by position.',
        why: 'The application does not guarantee that order, so another equivalent state puts a different record there and the check grades the wrong item.',
        fix: 'Select the record by a field (e.g. its name or id) and check every match, or require exactly one (`len(...) == 1`) before reading it.',
      },
    },
    docs: {
      whatItDoes:
        'In lambdas embedded in task JSON, reports `[...][0]` / `[...][-1]` on a list comprehension, `list(filter(...))`, `list(d.keys())`…, `next(...)` called without a default, and positional indexing into a state array whose element is then read as a record (`dump["models"][0]["name"]`, or a `pred` reading `key[0]["opacity"]` of the list its `key` lambda filtered), once per entry: the entry\'s other picks are related locations. A filter by name or id is reported too: whether a name identifies one record is a property of the application\'s data, not of the lambda (a GRASS GIS layer\'s `name` is its map\'s name, and one map can be added to the layer tree twice), so without evidence of uniqueness the first match decides the verdict. Not reported: positions in a member with a singular name (`dump["_data"][1]`, `center[0]`), and a position of a list whose layout the lambda tested first (`cmd[0] == "d.vect" and cmd[1]["map"] == …`): both are fixed-layout tuples rather than arrays of like records; nor the one element of a list the lambda required to have exactly one (`len(key) == 1 and key[0][…]`).',
      why: 'When no item matches, these raise (IndexError, StopIteration) and the check errors out; when several match, the result depends on iteration order — the ChimeraX first-match defect (VER-003) in JSON form: equivalent correct states pass or fail by accident.',
      references: ['VER-003'],
    },
  },
  create(ctx) {
    // lambdas embedded in task JSON only: subscribe to nothing in .py files (the central pass then skips them)
    if (ctx.unit.layer === 'python' && !ctx.unit.embedded) return {};
    // one finding per collection and index per lambda (`key[0]['a'] > v and key[0]['a'] < w` is one pick)
    const seen = new Set<string>();
    const once = (what: string) => !seen.has(what) && !!seen.add(what);
    return {
      python: {
        subscript(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python') return;
          const idx = node.childForFieldName('subscript');
          if (!isIntIndex(idx)) return;
          const value = node.childForFieldName('value');
          const what = filteredCollection(value);
          const index = unparen(idx)!.text.replace(/\s+/g, '');
          if (what) {
            if (once(`${value?.text}[${index}]`)) ctx.report({ messageId: 'firstOfFiltered', data: { role: code.role, index, what }, at: node, group: defect(code) });
            return;
          }
          const v = unparen(value);
          // a record picked by position out of a state array: <state>['models'][0]['name']
          if (!v || !(v.type === 'subscript' || v.type === 'attribute' || v.type === 'identifier') || !usedAsRecord(node)) return;
          if (!namesRecordArray(v) || notAPick(node, v)) return;
          if (once(`${v.text}[${index}]`)) ctx.report({ messageId: 'positionalRecord', data: { role: code.role, index }, at: node, group: defect(code) });
        },
        call(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python') return;
          const fn = node.childForFieldName('function');
          if (fn?.type !== 'identifier' || fn.text !== 'next') return;
          const args = node.childForFieldName('arguments');
          if (!args) return;
          // next(<generator>) parses as a call whose arguments node is the generator expression itself
          const n = args.type === 'generator_expression' ? 1 : args.namedChildren.filter((c) => c && c.type !== 'comment').length;
          if (n === 1) ctx.report({ messageId: 'nextNoDefault', data: { role: code.role }, at: node, group: defect(code) });
        },
      },
    };
  },
});

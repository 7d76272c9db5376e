/**
 * first-match-lambda — an embedded lambda that takes "the first" item of a
 * filtered or unordered collection (`[…][0]`, `next(…)` without a default,
 * `list(d.keys())[0]`) or picks a record out of a state array by position.
 */
import type { PyNode as Node } from '../../src/lang/python/tree.js';
import { defineRule } from '../../src/contract/rule.js';
import { enclosingLambdaParams, rootLambda, selectsByKey, unparen } from '../../src/suites/lambda.js';
import type { EmbeddedCode } from '../../src/suites/types.js';
import type { PythonProject } from '../../src/lang/python/types.js';

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

/** The entry's `key` lambda returns a list selected by key (`[p for p in … if p['name'] == 'font']`)? */
function keyLambdaSelectsByKey(code: EmbeddedCode, python: PythonProject): boolean {
  const key = code.entry?.embedded.find((e) => e.role === 'key' && e.language === 'python');
  if (!key) return false;
  const lam = rootLambda(python.analyseCode(key.code).ast);
  return !!lam && selectsByKey(lam.childForFieldName('body'));
}

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
        fix: 'Check all candidates (e.g. `any(...)` over the matches) or select by a unique key.',
      },
      nextNoDefault: {
        what: 'The `{{role}}` lambda calls `next(...)` without a default.',
        why: 'It raises StopIteration when nothing matches and returns whichever match iterates first when several do.',
        fix: 'Pass a default (`next(..., None)`) and handle it, or check all matches with `any(...)`.',
      },
      positionalRecord: {
        what: 'The `{{role}}` lambda picks record {{index}} of a state array by position.',
        why: 'The application does not guarantee that order, so another equivalent state puts a different record there and the check grades the wrong item.',
        fix: 'Select the record by a field (e.g. its name or id).',
      },
    },
    docs: {
      whatItDoes:
        'In lambdas embedded in task JSON, reports `[...][0]` / `[...][-1]` on a list comprehension, `list(filter(...))`, `list(d.keys())`…, `next(...)` called without a default, and positional indexing into a state array whose element is then read as a record (`dump["models"][0]["name"]`), once per collection and index in a lambda. Not reported: a list comprehension that selects by key — its condition is `item[\'name\'] == …` (or `id`, `uuid`, `key`, `identifier`, `_name`) — since a name or id identifies one record among its siblings, so `[0]` of it is the selection by key this rule recommends (an absent record gives an empty list and the check fails, as it should); the same for a `pred` that indexes its first argument when the entry\'s `key` lambda returns such a list; and positions in a member with a singular name (`dump["_data"][1]`, `center[0]`), which is a fixed-layout tuple rather than an array of like records.',
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
            // `[r for r in records if r['name'] == 'x'][0]`: selection by key, the fix this rule recommends
            if (selectsByKey(value)) return;
            if (once(`${value?.text}[${index}]`)) ctx.report({ messageId: 'firstOfFiltered', data: { role: code.role, index, what }, at: node });
            return;
          }
          const v = unparen(value);
          // a record picked by position out of a state array: <state>['models'][0]['name']
          if (!v || !(v.type === 'subscript' || v.type === 'attribute' || v.type === 'identifier') || !usedAsRecord(node)) return;
          if (!namesRecordArray(v)) return;
          // a `pred` indexing its first argument gets the key lambda's result: a list selected by key has one record
          if (v.type === 'identifier' && code.role === 'pred' && enclosingLambdaParams(node)?.positional[0] === v.text && keyLambdaSelectsByKey(code, ctx.project.python)) return;
          if (once(`${v.text}[${index}]`)) ctx.report({ messageId: 'positionalRecord', data: { role: code.role, index }, at: node });
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
          if (n === 1) ctx.report({ messageId: 'nextNoDefault', data: { role: code.role }, at: node });
        },
      },
    };
  },
});

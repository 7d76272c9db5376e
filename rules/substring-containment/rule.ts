/**
 * substring-containment — `value in key`, `key.find(value)` and friends on
 * strings inside `find`/`pred` lambdas: a substring test where equality (or a
 * delimited match) was meant.
 */
import type { PyNode as Node } from '../../src/lang/python/tree.js';
import { defineRule } from '../../src/contract/rule.js';
import { comparisonOperators, enclosingLambdaParams, unparen } from '../../src/suites/lambda.js';

type Msg = 'contains' | 'find';

const STR_METHODS = new Set(['lower', 'upper', 'strip', 'lstrip', 'rstrip', 'casefold', 'replace', 'format', 'join', 'read', 'decode', 'title']);
/** Key-lambda shapes whose result is a collection, where `in` is membership, not substring. */
const COLLECTION_KEY = /\.(split|splitlines|keys|values|items)\(|\b(list|set|sorted|tuple|dict|frozenset)\(|^\s*lambda[^:]*:\s*[[{(]/;
/** A key lambda that ends in a field with a plural name (`dump['toolbars']['keys']`, `['layers']`):
 *  the state holds a collection there, so `value in key` is membership. Without evidence of a
 *  string the rule stays silent (it cannot see the state's types). */
const PLURAL_FIELD_KEY = /\[\s*['"][A-Za-z_]*[a-hj-rtv-z]s['"]\s*\]\s*$/; // not -ss, -is, -us (`status`, `axis`)

interface Operand {
  kind: 'param' | 'strlit' | 'strcall' | 'other';
  name?: string;
}

function classify(n: Node | null, params: Set<string>): Operand {
  const e = unparen(n);
  if (!e) return { kind: 'other' };
  if (e.type === 'identifier' && params.has(e.text)) return { kind: 'param', name: e.text };
  if (e.type === 'string' || e.type === 'concatenated_string') return { kind: 'strlit' };
  if (e.type === 'call') {
    const fn = e.childForFieldName('function');
    if (fn?.type === 'identifier' && fn.text === 'str') {
      const a = unparen(e.childForFieldName('arguments')?.namedChildren[0] ?? null);
      return { kind: 'strcall', name: a?.type === 'identifier' ? a.text : undefined };
    }
    if (fn?.type === 'attribute' && STR_METHODS.has(fn.childForFieldName('attribute')?.text ?? '')) {
      const obj = unparen(fn.childForFieldName('object'));
      return { kind: 'strcall', name: obj?.type === 'identifier' ? obj.text : undefined };
    }
  }
  return { kind: 'other' };
}

export default defineRule<Msg>({
  meta: {
    id: 'substring-containment',
    description: 'A substring test (`value in key`, `key.find(value)`) on strings in a find/pred lambda where a match was meant.',
    defaultSeverity: 'warn',
    layers: ['python'],
    unitLocal: true,
    languages: ['json'],
    confirm: { oracle: 'substring-containment',
      positional: true, description: 'Calls the predicate with the expected value plus one extra character; confirmed when it still accepts.' },
    messages: {
      contains: {
        what: 'The `{{role}}` lambda tests `{{left}} in {{right}}` on strings.',
        why: 'That is a substring test, so it also accepts longer values that merely contain the expected text (`\'n: 2639750\'` passes for `\'n: 263975\'`).',
        fix: 'Compare with `==`, or match a delimited token (split the text, or use a regex with boundaries).',
      },
      find: {
        what: 'The `{{role}}` lambda uses `.{{method}}()` to look for one string inside another.',
        why: 'Any occurrence counts, so longer or different values that contain the text pass too.',
        fix: 'Compare with `==`, or match a delimited token (split the text, or use a regex with boundaries).',
      },
    },
    docs: {
      whatItDoes:
        'In `find` and `pred` lambdas embedded in task JSON, reports `a in b` / `a not in b` where `b` is a string (a `str()`/string-method result, the `key` of a `find` lambda — always a serialized path — or a parameter compared with a string expected `value` and not produced as a collection by the `key` lambda — a `.keys()`/`list(...)`/literal result, or a field with a plural name such as `keys` or `layers`), and `.find()`/`.count()` on such strings.',
      why: 'A substring test accepts wrong answers that contain the right one: `value in key` passes `n: 2639750` for `n: 263975`, `_name` matches `_names`. The benchmark then credits an agent that did not do the task.',
    },
  },
  create(ctx) {
    // lambdas embedded in task JSON only: subscribe to nothing in .py files (the central pass then skips them)
    if (ctx.unit.layer === 'python' && !ctx.unit.embedded) return {};
    return {
      python: {
        comparison_operator(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python' || (code.role !== 'find' && code.role !== 'pred')) return;
          const ops = comparisonOperators(node);
          if (ops.length !== 1 || (ops[0] !== 'in' && ops[0] !== 'not in')) return;
          const p = enclosingLambdaParams(node);
          if (!p) return;
          const params = new Set(p.names);
          const operands = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
          if (operands.length !== 2) return;
          const left = classify(operands[0]!, params);
          const right = classify(operands[1]!, params);
          if (left.kind === 'other' || right.kind === 'other' || right.kind === 'strlit') return;
          const first = p.positional[0];
          const second = p.positional[1];
          // Evidence that the container is a string (not a list/dict, where `in` is membership).
          let stringy = right.kind === 'strcall';
          if (!stringy && right.kind === 'param') {
            if (code.role === 'find' && right.name === first) stringy = true; // find's key is the serialized state path
            else if (code.role === 'pred' && left.kind === 'param') {
              // pred(key, value): key comes from the key lambda/path, value is the JSON `value`
              const expected = code.entry?.fields.value?.value;
              const keyCode = code.entry?.fields.key?.value;
              const keyIsCollection = typeof keyCode === 'string' && (COLLECTION_KEY.test(keyCode) || PLURAL_FIELD_KEY.test(keyCode));
              const containerIsKey = right.name === first;
              const containerIsValue = right.name === second;
              if (containerIsKey && typeof expected === 'string' && !keyIsCollection) stringy = true;
              if (containerIsValue && typeof expected === 'string') stringy = true;
            }
          }
          if (!stringy) return;
          ctx.report({ messageId: 'contains', data: { role: code.role, left: operands[0]!.text, right: operands[1]!.text }, at: node });
        },
        call(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python' || (code.role !== 'find' && code.role !== 'pred')) return;
          const fn = node.childForFieldName('function');
          if (fn?.type !== 'attribute') return;
          const method = fn.childForFieldName('attribute')?.text;
          if (method !== 'find' && method !== 'count' && method !== '__contains__') return;
          const p = enclosingLambdaParams(node);
          if (!p) return;
          const params = new Set(p.names);
          const recv = classify(fn.childForFieldName('object'), params);
          const arg = classify(node.childForFieldName('arguments')?.namedChildren[0] ?? null, params);
          if (recv.kind === 'other' || arg.kind === 'other') return;
          ctx.report({ messageId: 'find', data: { role: code.role, method }, at: node });
        },
      },
    };
  },
});

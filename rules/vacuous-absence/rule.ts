/**
 * vacuous-absence — an absence check whose operand is None on the path that reaches it (VER-002).
 */
import { defineRule } from '../../src/contract/rule.js';
import { named, unparen, type PyNode, comparisonOperators } from '../../src/lang/python/tree.js';
import { callOf } from '../../src/lang/python/facts.js';
import { constantCollection } from '../../src/lang/python/constant-collections.js';

type Msg = 'vacuous';

const mentionCache = new WeakMap<object, Map<string, boolean>>();
/** Another Python module of the project spells `name` as a word (it may import and change the collection). */
function mentionedElsewhere(project: { python: { files(): Iterable<string>; text(p: string): string | undefined } }, file: string, name: string): boolean {
  let m = mentionCache.get(project);
  if (!m) mentionCache.set(project, (m = new Map()));
  const key = `${file}\0${name}`;
  let hit = m.get(key);
  if (hit === undefined) {
    const word = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
    hit = false;
    for (const f of project.python.files()) if (f !== file && word.test(project.python.text(f) ?? '')) { hit = true; break; }
    m.set(key, hit);
  }
  return hit;
}

export default defineRule<Msg>({
  meta: {
    id: 'vacuous-absence',
    description: 'An absence check (`x not in m`, `m.get(x) is None`) whose operand is None on that path: it passes whether or not the item exists.',
    defaultSeverity: 'error',
    layers: ['python'],
    unitLocal: true,
    languages: ['python'],
    messages: {
      vacuous: {
        what: '`{{operand}}` is None on a path that reaches this absence check (set on line {{line}}).',
        why: '`{{check}}` is then true whether or not the item exists, so the task passes even when the agent left the item in place.',
        fix: 'Check the key the entry names.',
      },
    },
    docs: {
      whatItDoes: 'Flags `x not in m`, `x not in m.keys()`, `m.get(x) is None` and `m.get(x) == None` where constant propagation shows `x` is None on some path that reaches the check (assigned None, or established by `x is None`). A collection of constants written in the code (`x not in (None, "us-ascii")`, a module-level tuple or dict of constants that nothing changes) is not a look-up of an item: the test against fixed alternatives is not flagged.',
      why: '`None not in states` is true for every real state, so an entry with `value: null` ("the item must be gone") passes even when the item is still there (VER-002): the benchmark rewards agents that did nothing.',
      references: ['VER-002'],
    },
    confirm: {
      oracle: 'vacuous-absence',
      description: 'Runs the function with the item present in the state and an absence request; a passing verdict confirms the check is vacuous.',
    },
  },
  create() {
    return {
      python: {
        comparison_operator(n, c) {
          const a = c.python;
          const kids = named(n);
          const ops = comparisonOperators(n);
          if (kids.length !== 2 || ops.length !== 1) return;
          const op = ops[0]!;
          let operand: PyNode | undefined;
          // a collection of constants written in the code (`x not in (None, "us-ascii")`, a module's tuple of
          // names) is a test of the value against fixed alternatives, not a look-up of an item of the state
          const fixed = (e: PyNode): boolean => {
            const keys = callOf(a, e);
            return constantCollection(a, keys && keys.method === 'keys' && keys.receiver && keys.args.length === 0 ? keys.receiver : e, (name) => mentionedElsewhere(c.project, a.path, name));
          };
          if (op === 'not in') operand = fixed(kids[1]!) ? undefined : unparen(kids[0]!);
          else if (op === 'is' || op === '==') {
            // m.get(x) is None
            const [l, r] = [unparen(kids[0]!), unparen(kids[1]!)];
            const get = r.type === 'none' ? callOf(a, l) : l.type === 'none' ? callOf(a, r) : undefined;
            if (get && get.method === 'get' && get.receiver && get.args.length === 1 && !fixed(get.receiver)) operand = unparen(get.args[0]!);
          }
          if (!operand || (operand.type !== 'identifier' && operand.type !== 'none')) return;
          const w = a.noneOnSomePath(operand);
          if (!w) return;
          const fn = a.functionAt(n);
          c.report({
            messageId: 'vacuous',
            data: { operand: a.src(operand), line: a.line(w.site), check: a.src(n) },
            at: n,
            control: { oracle: 'vacuous-absence', file: a.path, line: a.line(n), qualname: fn?.qualname ?? '', operand: a.src(operand), check: a.src(n), noneLine: a.line(w.site), always: w.always },
          });
        },
      },
    };
  },
});

/**
 * set-collapse — equality/containment after set()/frozenset()/dict keys built from sequences (VER-004).
 * (A `javascript` visitor can be added next to `python` below.)
 */
import { defineRule } from '../src/engine/rule.js';
import { named, unparen } from '../src/lang/python/tree.js';
import { isSetValued, setFromSequence, callOf } from '../src/lang/python/facts.js';

type Msg = 'collapse';

const OPS = new Set(['==', '!=', '<=', '>=', '<', '>']);

export default defineRule<Msg>({
  meta: {
    id: 'set-collapse',
    description: 'Sequences compared after conversion to sets: duplicates collapse, so a duplicated line can stand in for a missing one.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      collapse: '`{{expr}}` compares sequences after turning them into sets, so duplicates collapse: output with a repeated line and a missing distinct line can compare equal to the expected lines. Compare `sorted(a) == sorted(b)` or `Counter(a) == Counter(b)` to keep multiplicity while staying order-independent.',
    },
    docs: {
      whatItDoes: 'Flags `==`, `!=` and subset comparisons (`<=`, `issubset`, `issuperset`) whose operands are sets built from sequences — `set(lines)`, `frozenset(...)`, set comprehensions, `dict.fromkeys(...)` — directly or through a local variable.',
      why: 'The expected output `["a", "a", "b"]` and the observed `["a", "b", "b"]` are equal as sets. The verifier passes output that is missing or duplicating lines (VER-004).',
      incorrect: [
        {
          files: {
            'verifier/info.py': 'def check_info(item, log):\n    got = set(log.splitlines())\n    return got == set(item["value"])  # vaudit-expect: set-collapse\n',
          },
        },
      ],
      correct: [
        {
          files: {
            'verifier/info.py': 'from collections import Counter\n\n\ndef check_info(item, log):\n    return sorted(log.splitlines()) == sorted(item["value"]) or Counter(log.splitlines()) == Counter(item["value"])\n',
          },
        },
      ],
      references: ['VER-004'],
    },
    confirm: {
      oracle: 'set-collapse',
      description: 'Runs the function on the expected lines and on a witness that duplicates one expected line and drops another; both passing confirms the collapse.',
    },
  },
  create() {
    return {
      python: {
        comparison_operator(node, c) {
          const a = c.python;
          const n = a.node(node);
          if (!n) return;
          const kids = named(n);
          const ops = n.children.filter((k) => !k.named).map((k) => k.type);
          if (kids.length !== 2 || ops.length !== 1 || !OPS.has(ops[0]!)) return;
          const [l, r] = [unparen(kids[0]!), unparen(kids[1]!)];
          const seq = setFromSequence(a, l) ?? setFromSequence(a, r);
          if (!seq || !isSetValued(a, l) || !isSetValued(a, r)) return;
          const fn = a.functionAt(n);
          c.report({
            messageId: 'collapse',
            data: { expr: a.src(n) },
            at: n,
            control: { oracle: 'set-collapse', file: a.path, line: a.line(n), qualname: fn?.qualname ?? '', left: a.src(l), right: a.src(r) },
          });
        },
        call(node, c) {
          const a = c.python;
          const call = a.call(node);
          if (!call || !call.receiver || (call.method !== 'issubset' && call.method !== 'issuperset') || call.args.length !== 1) return;
          const other = call.args[0]!;
          const seq = setFromSequence(a, call.receiver) ?? (callOf(a, other) || other.type === 'identifier' ? setFromSequence(a, other) : undefined);
          if (!seq || !isSetValued(a, call.receiver)) return;
          const fn = a.functionAt(call.node);
          c.report({
            messageId: 'collapse',
            data: { expr: a.src(call.node) },
            at: call.node,
            control: { oracle: 'set-collapse', file: a.path, line: a.line(call.node), qualname: fn?.qualname ?? '', left: a.src(call.receiver), right: a.src(other) },
          });
        },
      },
    };
  },
});

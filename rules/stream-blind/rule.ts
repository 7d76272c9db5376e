/**
 * stream-blind — success decided by searching one output stream while the tool may report on the
 * other (VER-005).
 */
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import { type PyNode, unparen, named, field, firstNamed } from '../../src/lang/python/tree.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { searchedText, blindStream, literalArgv } from '../../src/lang/python/facts.js';

type Msg = 'blind' | 'uncaptured';

const LOG_CALL = /^(print|(\w+\.)*(logger|logging|log|LOGGER|_logger)\.\w+|warnings\.warn)$/;

/** The search is the condition of an `if` whose every branch only prints or logs: it chooses a
 *  message, not a verdict (`if "Error" in r.stderr: print(...) else: print(...)`). */
function onlyPicksLogLine(a: PythonAnalysis, n: PyNode): boolean {
  let c = n;
  let p = n.parent;
  while (p && (p.type === 'parenthesized_expression' || p.type === 'not_operator')) { c = p; p = p.parent; }
  if (!p || (p.type !== 'if_statement' && p.type !== 'elif_clause') || c.field !== 'condition') return false;
  const ifNode = p.type === 'elif_clause' ? p.parent : p;
  if (!ifNode) return false;
  const blocks = [field(ifNode, 'consequence'), ...named(ifNode).filter((k) => k.type === 'elif_clause' || k.type === 'else_clause').map((k) => field(k, 'consequence') ?? field(k, 'body'))];
  return blocks.every((b) => !!b && named(b).every((st) => {
    if (st.type === 'comment' || st.type === 'pass_statement') return true;
    const e = st.type === 'expression_statement' ? firstNamed(st) : undefined;
    const f = e?.type === 'call' ? field(e, 'function') : undefined;
    return !!f && LOG_CALL.test(a.src(f));
  }));
}

export default defineRule<Msg>({
  meta: {
    id: 'stream-blind',
    description: 'A check searches one output stream of a tool (usually stdout) and never looks at the other.',
    defaultSeverity: 'warn',
    layers: ['python'],
    unitLocal: true,
    languages: ['python'],
    messages: {
      blind: {
        what: 'This check searches only the {{stream}} of `{{tool}}` and never reads its {{other}}.',
        why: 'A marker the tool reports on {{other}} (a warning, an error, `sorry`) is missed, so the check passes.',
        fix: 'Search both streams (`result.stdout + result.stderr`) or merge them with `stderr=subprocess.STDOUT`.',
      },
      uncaptured: {
        what: 'This check searches the output of `check_output`, which does not capture stderr.',
        why: 'A marker the tool reports on stderr is missed, so the check passes.',
        fix: 'Pass `stderr=subprocess.STDOUT` (or use `subprocess.run` and search both streams).',
      },
    },
    docs: {
      whatItDoes: 'Flags membership tests and searches (`in`, `not in`, `.find`, `.count`, `re.search`…) on `result.stdout` (or the first value of `communicate()`) when the same function never reads the other stream and the streams are not merged, and searches of `check_output(...)` output without `stderr=subprocess.STDOUT`.',
      why: 'Lean reports `declaration uses \'sorry\'` as a warning; depending on the version it lands on stderr. A checker that searches only stdout passes proofs that use `sorry` (VER-005).',
      references: ['VER-005'],
    },
    confirm: {
      oracle: 'stream-blind',
      description: 'Runs the function against a stub tool that prints the searched marker on the other stream; a passing verdict confirms the check is blind to it.',
    },
  },
  create() {
    const check: PythonVisitor<Msg> = (n, c) => {
      const a = c.python;
      const text = searchedText(a, n);
      if (!text) return;
      const fn = a.functionAt(n);
      const use = blindStream(a, text, fn);
      if (!use || onlyPicksLogLine(a, n)) return;
      // the searched marker: the string literal operand / pattern
      let needle: string | undefined;
      const lit = n.type === 'comparison_operator' ? unparen(named(n)[0]!) : (a.call(n)?.args[0] && unparen(a.call(n)!.args[0]!));
      if (lit && lit.type === 'string') needle = a.src(lit).replace(/^[rbuRBU]*(['"])([\s\S]*)\1$/, '$2');
      const argv = literalArgv(a, use.call);
      const tool = argv?.[0] && argv[0] !== '\u0000' ? argv[0] : a.src(use.call.fn);
      c.report({
        messageId: use.uncaptured ? 'uncaptured' : 'blind',
        data: { stream: use.searched, other: use.searched === 'stdout' ? 'stderr' : 'stdout', tool },
        at: n,
        control: {
          oracle: 'stream-blind', file: a.path, line: a.line(n), qualname: fn?.qualname ?? '', stream: use.searched,
          ...(needle !== undefined ? { needle } : {}), ...(argv?.[0] && argv[0] !== '\u0000' ? { tool: argv[0] } : {}),
        },
      });
    };
    return { python: { comparison_operator: check, call: check } };
  },
});

/**
 * regex-invalid — a regular expression that Python's `re.compile` rejects:
 * in a task's `pattern`/`regex` field, or a literal pattern passed to
 * `re.compile`/`re.search`/… in verifier code.
 */
import { defineRule } from '../../src/contract/rule.js';
import { checkPythonRegex } from '../../src/suites/regex/python-re.js';
import { regexLiteralOf } from '../../src/suites/regex/python-literal.js';

type Msg = 'invalid';

export default defineRule<Msg>({
  meta: {
    id: 'regex-invalid',
    description: "A regular expression that Python's re.compile rejects (Python re semantics, not ECMAScript).",
    defaultSeverity: 'error',
    layers: ['suite', 'python'],
    unitLocal: true,
    languages: ['json', 'python'],
    confirm: { oracle: 'regex-invalid',
      positional: true, description: "Compiles the pattern with Python's own `re.compile` in the host's interpreter; confirmed when it raises re.error." },
    messages: {
      invalid: {
        what: 'This regular expression is invalid for Python\'s re ({{error}} at position {{pos}}).',
        why: '`re.compile` raises `re.error` whenever the check runs, so the entry can never pass and an error-swallowing verifier reports a silent failure.',
        fix: 'Write the pattern in the syntax Python\'s re accepts: {{hint}}.',
      },
    },
    docs: {
      whatItDoes:
        "Parses each regex with the grammar of CPython's `re` module (3.11 `sre_parse`, plus the fixed-width look-behind check of `sre_compile`) and reports exactly what `re.compile` rejects, at the offending characters: ECMAScript-only syntax such as `(?<name>…)` or `\\k<name>`, bad escapes (`\\q`), unbalanced parentheses, nothing to repeat, bad ranges, global flags not at the start, variable-width look-behind. Python-only syntax (`(?P<n>…)`, `(?P=n)`, inline flags, atomic groups, possessive quantifiers) is valid. Checks `pattern`/`regex` fields of task entries and literal patterns in `re.*` calls in Python code.",
      why: 'An invalid pattern raises `re.error` every time the verifier compiles it: the check can never pass, and behind an exception-swallowing decorator the task silently fails for every agent.',
    },
  },
  create() {
    const hint = (msg: string) =>
      /unknown extension \?<[^=!]/.test(msg)
        ? 'name groups with (?P<name>…), not (?<name>…)'
        : /bad escape \\k/.test(msg)
          ? 'refer to named groups with (?P=name), not \\k<name>'
          : 'check it with python -c "import re; re.compile(...)"';
    return {
      suite: {
        embedded(code, ctx) {
          if (code.language !== 'regex' || code.dialect !== 'python') return;
          const err = checkPythonRegex(code.code);
          if (!err) return;
          const s = Math.min(err.pos, code.code.length);
          const e = Math.min(Math.max(s + err.length, s + 1), code.code.length);
          const start = code.toFileOffset(s);
          const end = code.toFileOffset(Math.max(e, s));
          ctx.report({ messageId: 'invalid', data: { error: err.message, pos: err.pos, hint: hint(err.message) }, at: { start, end: Math.max(end, start + 1) }, pointer: code.ref.pointer });
        },
      },
      python: {
        call(node, ctx) {
          const lit = regexLiteralOf(node);
          if (!lit) return;
          const err = checkPythonRegex(lit.pattern, lit.flags);
          if (!err) return;
          const s = lit.start + Math.min(err.pos, lit.pattern.length);
          const e = Math.min(s + Math.max(err.length, 1), lit.start + Math.max(lit.pattern.length, 1));
          ctx.report({ messageId: 'invalid', data: { error: err.message, pos: err.pos, hint: hint(err.message) }, at: { start: s, end: Math.max(e, s + 1) } });
        },
      },
    };
  },
});

/**
 * float-equality — an expected non-integer compared with `==`: in Python and JS/TS code, and across layers
 * (a non-integer JSON `value` of an entry whose bound verifier function compares it with `==`).
 */
import { defineRule } from '../../src/contract/rule.js';
import { named, unparen, comparisonOperators } from '../../src/lang/python/tree.js';
import { fieldEqualities, isNonIntegerFloat } from '../../src/lang/python/facts.js';
import { floatEquality, programOf } from '../../src/lang/js/index.js';
import { jsonStatePath } from '../../src/lang/python/value-origin.js';
import { appStateNear } from '../../src/lang/js/app-state.js';

type Msg = 'literal' | 'entry' | 'jsLiteral' | 'jsComputed';

const LITERALS = new Set(['integer', 'float', 'string', 'true', 'false', 'none']);

export default defineRule<Msg>({
  meta: {
    id: 'float-equality',
    description: 'A non-integer expected value compared with `==` or `!=`: rounding makes correct results fail.',
    defaultSeverity: 'warn',
    layers: ['python', 'suite', 'javascript'],
    languages: ['python', 'json', 'javascript', 'typescript'],
    confirm: {
      oracle: 'float-equality',
      description: 'Runs the Python function with the compared input equal to the expected value and one ulp off (the last bit rounding changes); confirmed when the verdict differs. JS/TS findings are not confirmed.',
    },
    messages: {
      jsLiteral: {
        what: '`{{expr}}` compares a computed value with the non-integer `{{value}}` using `{{op}}`.',
        why: 'Floating-point results differ in the last bits (0.1 + 0.2 is 0.30000000000000004), so a correct result fails.',
        fix: 'Compare with a tolerance: `Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))`.',
      },
      jsComputed: {
        what: '`{{expr}}` compares the result of floating-point arithmetic with `{{op}}`.',
        why: 'A division or a `Math` function rounds in the last bits, so a value that is mathematically equal can compare unequal and a correct result fails.',
        fix: 'Compare with a tolerance (`Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))`) or compare rounded values.',
      },
      literal: {
        what: '`{{expr}}` compares a computed value with the non-integer `{{value}}` using `{{op}}`.',
        why: 'Floating-point results differ in the last bits (0.1 + 0.2 is not 0.3), so a correct result fails.',
        fix: 'Compare with a tolerance: `math.isclose(a, b, rel_tol=…, abs_tol=…)`.',
      },
      entry: {
        what: 'The expected value {{value}} is not an integer, and the verifier `{{qualname}}` ({{where}}) compares it with `==`.',
        why: 'A correct result that differs in the last bits fails.',
        fix: 'Add a tolerance `pred` to the entry or compare with `math.isclose` in the verifier.',
      },
    },
    docs: {
      whatItDoes: 'Flags `==`/`!=` between a computed value and a non-integer float literal (or a local that holds one), and task entries whose non-integer `value` routes (through the verifier binding) to a function that compares the entry\'s `value` with `==`/`!=` when the entry has no `pred`. A field of the state an application serves as JSON (`requests.get(…).json()["items"][i]["price"]`) is not computed when the app\'s own JavaScript shipped beside the verifier only ever stores literals, parses of typed text (`parseFloat(input.value)`) or copies there (no arithmetic, no in-place update, no merge it cannot follow): JSON carries the double of those digits, the one the literal gives, and it is not flagged. In JavaScript and TypeScript, flags `===`/`==`/`!==`/`!=` between a computed value and a non-integer literal (or a `const` holding one: `parseFloat(x) === 0.3`), and between floating-point arithmetic — a division (not by a power of two), `**`, `Math.sqrt`/`log`/`pow`…, arithmetic over a float literal, or a `const` holding one — and any non-literal value (`sum / n === parseFloat(expected)`). Integer-valued arithmetic (`Math.round`, `.length`) and two parsed texts (`parseFloat(a) === parseFloat(b)`) are not flagged, nor is a field of a schema-typed model extraction (a call known by what it calls to have a model write output shaped by a `z.object` schema: Stagehand\'s `extract(instruction, schema)`/`extract({ instruction, schema })`, `generateObject`/`streamObject` imported from `ai`, OpenAI/Anthropic `….parse({ response_format: zodResponseFormat(schema, …) })` or `responses.parse({ text: { format: zodTextFormat(…) } })`, LangChain\'s `withStructuredOutput(schema).invoke(…)`) compared with a literal as it came (`const { price } = await page.extract(\'…\', z.object({ price: z.number() }))`, `res.object.rating` of `generateObject({ schema })`, `parseFloat(data.total)` of a `z.string()` field): the extractor\'s model writes the decimal text it read, which parses to the literal\'s double; any arithmetic on the way (`price * quantity`, a schema `.transform`), a write anywhere in the file to the result, the field or a `const` alias of it (`data.total /= 100`, `Object.assign(data, …)`), an `extract` whose instruction text is SQL, a URL or a path (`warehouse.extract(\'SELECT AVG(stars) …\', schema)`), or any other call given a schema — a server\'s JSON or a query result merely validated by it (`getJson(url, schema)`, `sql(query, schema)`), a tool call with a `prompt` member — keeps it flagged. `--confirm` runs the Python function with the compared input exactly the expected value and one ulp off; JS/TS findings are static (no control case).',
      why: 'A calculator that shows 0.30000000000000004 for 0.1 + 0.2 is correct, but `==` against 0.3 fails it: agents are failed for floating-point noise.',
    },
  },
  create() {
    return {
      javascript: {
        BinaryExpression(node, c, ancestors) {
          const program = programOf(ancestors);
          const f = program ? floatEquality(node, program, c.text) : undefined;
          if (!f) return;
          const expr = c.text.slice(node.start, node.end).replace(/\s+/g, ' ');
          if (f.kind === 'literal') c.report({ messageId: 'jsLiteral', data: { expr, value: f.value, op: node.operator }, at: node });
          else c.report({ messageId: 'jsComputed', data: { expr, op: node.operator }, at: node });
        },
      },
      python: {
        comparison_operator(n, c) {
          const a = c.python;
          const kids = named(n);
          const ops = comparisonOperators(n);
          if (kids.length !== 2 || ops.length !== 1 || (ops[0] !== '==' && ops[0] !== '!=')) return;
          const [l, r] = [unparen(kids[0]!), unparen(kids[1]!)];
          const floatSide = [l, r].find((x) => isNonIntegerFloat(a, x) || (x.type === 'identifier' && a.valueSources(x).length > 0 && a.valueSources(x).every((s) => isNonIntegerFloat(a, s))));
          if (!floatSide) return;
          const other = floatSide === l ? r : l;
          if (LITERALS.has(other.type)) return;
          // a field of the state an app serves as JSON, which the app's code only ever fills with typed,
          // seeded or copied numbers: JSON carries the double of those digits, the literal's double
          const sp = jsonStatePath(a, other);
          if (sp && appStateNear(c.project.files, a.path, c.project.root)?.verbatimNumbers(sp.path)) return;
          const value = isNonIntegerFloat(a, floatSide) ? a.src(floatSide) : a.src(a.valueSources(floatSide)[0]!);
          const fn = a.functionAt(n);
          const control = fn ? { control: { oracle: 'float-equality', file: a.path, line: a.line(n), qualname: fn.qualname, value: Number(value.replace(/_/g, '')), other: a.src(other) } } : {};
          c.report({ messageId: 'literal', data: { expr: a.src(n), value, op: ops[0]! }, at: n, ...control });
        },
      },
      suite: {
        entry(entry, c) {
          const v = entry.fields.value;
          if (!v || typeof v.value !== 'number' || Number.isInteger(v.value) || entry.fields.pred || !entry.binding) return;
          const b = entry.binding;
          const a = c.project.python.analysis(b.file);
          const fn = a?.functions().find((f) => f.node.start === b.start);
          if (!a || !fn) return;
          const eqs = fieldEqualities(a, fn, 'value');
          const first = eqs[0];
          if (!first) return;
          const file = c.project.files.get(b.file);
          c.report({
            messageId: 'entry',
            data: { value: String(v.value), qualname: b.qualname, where: `${file?.relPath ?? b.file}:${a.line(first)}` },
            at: { start: v.start, end: v.end },
            pointer: v.pointer,
            related: file ? [{ file: b.file, range: file.source.range(first.start, first.end), message: 'The entry\'s value is compared with `==` here.' }] : undefined,
            control: { oracle: 'float-equality', file: b.file, line: a.line(first), qualname: b.qualname, value: v.value, field: 'value' },
          });
        },
      },
    };
  },
});

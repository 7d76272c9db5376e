/**
 * Verdict shapes shared by Python and JS/TS (src/suites/verdict-shape.ts), and the rules that read
 * them as a user meets them: `vaudit check` on a JS eval-list suite whose verdict key is learned
 * from the eval module's own return.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'acorn';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPES, jsConst, jsVerdictFunctions, learnShapes, verdictTruth } from '../src/suites/verdict-shape.js';
import { runCli } from './helpers/run-cli.js';

const expr = (src: string) => {
  const p = parse(`(${src})`, { ecmaVersion: 'latest' }) as unknown as { body: Array<{ expression: never }> };
  return p.body[0]!.expression;
};

describe('verdict shapes', () => {
  it('reads bools, 0/1, (bool, msg) pairs and result objects alike', () => {
    const truth = (src: string) => verdictTruth(jsConst(expr(src)));
    expect(truth('false')).toBe(false);
    expect(truth('1')).toBe(true);
    expect(truth('0.0')).toBe(false);
    expect(truth('[false, "no file"]')).toBe(false);
    expect(truth('{ pass: false, reason: "x" }')).toBe(false);
    expect(truth('{ success: true }')).toBe(true);
    expect(truth("{ verdict: 'fail' }")).toBe(false);
    // not verdicts: other numbers, strings alone, objects without a verdict key, computed values
    for (const s of ['0.5', '"failed"', '{ error: "x" }', 'null', 'a === b', '[]']) expect(truth(s), s).toBeUndefined();
  });

  it('learns result-object keys from what the verdict functions return', () => {
    expect(verdictTruth(jsConst(expr('{ _success: false }')), DEFAULT_SHAPES)).toBeUndefined();
    const shapes = learnShapes([jsConst(expr('{ _success: state.clicked === true, note: "x" }'))]);
    expect(verdictTruth(jsConst(expr('{ _success: false }')), shapes)).toBe(false);
    // `note` held a string, not a truth value: it is no verdict key
    expect(shapes.keys.has('note')).toBe(false);
  });

  it('follows the entry function to the same-file functions whose result it returns', () => {
    const program = parse('function judge(x) { return x > 1; }\nfunction unused() { return false; }\nexport default async function evaluate(p) { return await judge(p); }\n', { ecmaVersion: 'latest', sourceType: 'module' });
    const names = [...jsVerdictFunctions(program)].map((f) => f.id?.name);
    expect(names.sort()).toEqual(['evaluate', 'judge']);
  });

  // Found by typing the ESTree nodes (acorn's AnyNode instead of an any bag): both read fields of a node
  // that is no function (an Identifier's `body`, a string literal's `name`).
  it('holds only functions: an entry naming an export that is no function of the module has none', () => {
    const mod = (src: string) => parse(src, { ecmaVersion: 'latest', sourceType: 'module' });
    // `export default imported` put the Identifier `imported` in the set of verdict functions
    const reexported = jsVerdictFunctions(mod("import imported from './lib.js';\nexport default imported;\n"), 'default');
    expect([...reexported].map((f) => f.type)).toEqual([]);
    // `exports[key] = fn` registered fn under the variable's name `key`, `exports['x'] = fn` under `undefined`
    const cjs = mod("const key = 'other';\nexports[key] = function (s) { return s.ok; };\nexports['x'] = function (s) { return s.ok; };\nexports.check = function check(s) { return s.ok; };\n");
    expect(jsVerdictFunctions(cjs, 'key').size).toBe(0);
    expect([...jsVerdictFunctions(cjs, 'check')].map((f) => f.id?.name)).toEqual(['check']);
  });
});

describe('vaudit check on a JS eval suite', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vaudit-verdict-shapes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the swallowed catch and the substring verdict of the eval module, not the helper', () => {
    mkdirSync(path.join(dir, 'evals', 'lib'), { recursive: true });
    writeFileSync(path.join(dir, 'evals.json'), '{"evals": ["dark-mode"]}\n');
    // the harness that routes each listed name to its module (what makes the module a verifier)
    writeFileSync(path.join(dir, 'run.mjs'), "import cfg from './evals.json' with { type: 'json' };\nexport async function run(page) {\n  for (const name of cfg.evals) {\n    const m = await import(`./evals/${name}.js`);\n    console.log(name, (await m.default(page))._success);\n  }\n}\n");
    writeFileSync(
      path.join(dir, 'evals', 'dark-mode.js'),
      "import { isJson } from './lib/util.js';\n\nexport default async function evaluate(page) {\n  try {\n    const text = await page.content();\n    if (!isJson(text)) return { _success: text.includes('dark') };\n    return { _success: JSON.parse(text).theme === 'dark' };\n  } catch (err) {\n    return { _success: false };\n  }\n}\n",
    );
    writeFileSync(path.join(dir, 'evals', 'lib', 'util.js'), 'export function isJson(t) {\n  try {\n    JSON.parse(t);\n    return true;\n  } catch {\n    return false;\n  }\n}\n');
    const r = runCli(['check', '.', '--format', 'json'], { cwd: dir });
    const out = JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; messageId: string; file: string; range: { start: { line: number } } }> };
    const mine = out.findings
      .filter((f) => f.ruleId === 'swallowed-error-verdict' || f.ruleId === 'substring-verdict')
      .map((f) => `${f.ruleId}/${f.messageId} ${path.basename(f.file)}:${f.range.start.line}`)
      .sort();
    expect(mine).toEqual(['substring-verdict/literal dark-mode.js:6', 'swallowed-error-verdict/jsSwallowed dark-mode.js:8']);
  });
});

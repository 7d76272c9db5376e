#!/usr/bin/env node
/**
 * Hostile input shapes (issue 30, item 5): generators that scale one construct — count × nesting ×
 * line length × encoding — and a runner that checks each shape with the real CLI beside neighbour
 * files whose findings are known (a task file with `task-schema`? no: a Python verifier with
 * `unbound-name` and a JavaScript verifier with `missing-timeout`). A shape passes when the run exits
 * 0 or 1 with no signal, within the bound, and the neighbours' findings are intact.
 *
 *   node bench/hostile-shapes.mjs [--only a,b] [--scale 1] [--timeout-ms 120000] [--list]
 *   node bench/hostile-shapes.mjs --scaling [--only a,b] [--sizes 1000,4000,16000] [--runs 1] [--repo DIR] [--json] [--batch K]
 *
 * `--scaling` checks one file of each shape at growing sizes (counts: 1k/4k/16k; nesting: 10/20/40/80)
 * and prints one table: wall, CPU (user + system) and peak RSS of the whole process, the same above the
 * floor (a check of the neighbours alone, measured in the same run), and the growth per step (CPU above
 * the floor at this size / at the previous size, beside the input's growth: linear is ×4 per ×4, ×2 per
 * ×2). `--repo DIR` checks with another built checkout too, alternated per size (before/after from one
 * run); `--json` prints one line per measurement instead; `--batch K` checks K copies of the shape's file in
 * each run (the memory bound is on the whole run, issue 30 item 5: `*-max-*` shapes are files near 5 MB). Needs `npm run build`. The generators are
 * exported for test/hostile-shapes.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = path.resolve(import.meta.dirname, '..');
const bin = path.join(repo, 'bin', 'vaudit.js');

const PY = 'verifier/chimerax/';
const JS = 'js/evals/';

/** Neighbour files: a Python verifier with one `unbound-name`, a JS verifier with one `missing-timeout`. */
export const NEIGHBOURS = {
  [`${PY}healthy.py`]: 'def grade(state):\n    return stat == 1\n',
  [`${JS}healthy.js`]: 'export default async function evaluate(page) {\n  const state = await fetch(page.url);\n  return { _success: state.ok === true };\n}\n',
  'tasks/VM/ChimeraX/healthy.json': JSON.stringify({ type: 'ChimeraX', instruction: 'Open the structure.', steps: 0, initialize: [], evaluate: [{ type: 'states', key: "lambda dump: dump['models']", value: 1 }] }),
};
/** What each neighbour must still report. */
export const NEIGHBOUR_FINDINGS = { [`${PY}healthy.py`]: ['unbound-name'], [`${JS}healthy.js`]: ['missing-timeout'] };

const rep = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('');
const ind = (k) => '    '.repeat(k);

/** Each shape: files (path → text or bytes) for a scale n; `n` is the size the issue reported. */
export const SHAPES = {
  // JavaScript / TypeScript: nesting that is not brackets
  'js-nested-if': { n: 5000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n${rep(n, () => 'if (p) ')}p.x = 1;\n  return { _success: true };\n}\n` }) },
  'js-nested-else': { n: 5000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n${rep(n, () => 'if (p) p.x = 1; else ')}p.x = 2;\n  return { _success: true };\n}\n` }) },
  'js-nested-for': { n: 5000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n${rep(n, (i) => `for (let i${i} = 0; i${i} < 1; i${i}++) `)}p.x = 1;\n  return { _success: true };\n}\n` }) },
  'js-nested-while': { n: 5000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n${rep(n, () => 'while (p.y) ')}p.x = 1;\n  return { _success: true };\n}\n` }) },
  'js-nested-labels': { n: 5000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n${rep(n, (i) => `l${i}: `)}p.x = 1;\n  return { _success: true };\n}\n` }) },
  'js-nested-templates': { n: 607, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n  const s = ${rep(n, () => '`a${')}p${rep(n, () => '}`')};\n  return { _success: s === 'a' };\n}\n` }) },
  'js-else-if-chain': { n: 20000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n  if (p.x === 0) { p.y = 0; }\n${rep(n, (i) => `  else if (p.x === ${i + 1}) { p.y = ${i}; }\n`)}  return { _success: true };\n}\n` }) },
  // loops nested in loops, each with a body that binds and reads (under the nesting guard's bound)
  'js-nested-loops': { n: 400, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(p) {\n  let x = null;\n${rep(n, (k) => `for (const i${k} of p.items) { if (i${k}.skip) continue; `)}if (x === null) { x = i0; } p.x = x;${rep(n, () => ' }')}\n  return { _success: x === 1 };\n}\n` }) },
  'ts-nested-loops': { n: 400, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(p: any): Promise<{ _success: boolean }> {\n  let x: number | null = null;\n${rep(n, (k) => `for (let i${k} = 0; i${k} < p.n; i${k}++) { while (p.busy(${k})) { await p.wait(); } `)}if (x === null) { x = i0; }${rep(n, () => ' }')}\n  return { _success: x === 1 };\n}\n` }) },
  'ts-nested-if': { n: 700, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(p: any): Promise<{ _success: boolean }> {\n${rep(n, () => 'if (p) ')}p.x = 1;\n  return { _success: true };\n}\n` }) },
  'ts-nested-templates': { n: 700, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(p: string): Promise<{ _success: boolean }> {\n  const s: string = ${rep(n, () => '`a${')}p${rep(n, () => '}`')};\n  return { _success: s === 'a' };\n}\n` }) },
  'ts-nested-labels': { n: 700, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(p: any): Promise<{ _success: boolean }> {\n${rep(n, (i) => `l${i}: `)}p.x = 1;\n  return { _success: true };\n}\n` }) },
  // fuzz (issue 30): flat, not nested — a comma sequence of n reads of one unbound name (one grouped finding whose
  // related sites were copied per site), n declarations in one scope (acorn looked each name up in all earlier ones)
  'js-comma-sequence': { n: 100000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(page) {\n  return (${Array.from({ length: n }, () => 'x').join(', ')});\n}\n` }) },
  'js-consts': { n: 128000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(page) {\n${rep(n, (i) => `  const a${i} = ${i};\n`)}  return { _success: page.x === a0 };\n}\n` }) },
  'js-let-declarators': { n: 64000, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(page) {\n  let ${Array.from({ length: n }, (_, i) => `a${i} = ${i}`).join(', ')};\n  return { _success: page.x === a0 };\n}\n` }) },
  'js-module-functions': { n: 64000, files: (n) => ({ [`${JS}shape.js`]: `${rep(n, (i) => `function f${i}(page) { return page.x === ${i}; }\n`)}export default async function evaluate(page) {\n  return { _success: f0(page) };\n}\n` }) },
  'ts-unicode-escape-consts': { n: 100000, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(page: { x: number }): Promise<{ _success: boolean }> {\n${rep(n, (i) => `  const \\u0061${i}: number = 1;\n`)}  return { _success: page.x === a0 };\n}\n` }) },
  // Python: counts
  'py-function-variables': { n: 40000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    v${i} = state.get(${i})\n`)}    return v0 == 1\n` }) },
  'py-module-variables': { n: 40000, files: (n) => ({ [`${PY}shape.py`]: `${rep(n, (i) => `v${i} = ${i}\n`)}def grade(state):\n    return state == v0\n` }) },
  'py-try-handlers': { n: 10000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    try:\n        x = state['a']\n${rep(n, (i) => `    except E${i} as e${i}:\n        x = e${i}\n`)}    return x == 1\n` }) },
  'py-try-variables': { n: 40000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    try:\n${rep(n, (i) => `        v${i} = state.get(${i})\n`)}    except KeyError:\n        return False\n    return v0 == 1\n` }) },
  'py-nested-try-finally': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (k) => `${ind(k + 1)}try:\n`)}${ind(n + 1)}x = state['a']\n${rep(n, (k) => `${ind(n - k)}finally:\n${ind(n - k + 1)}state.clear()\n`)}    return x == 1\n` }) },
  'py-nested-try-except': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (k) => `${ind(k + 1)}try:\n`)}${ind(n + 1)}x = state['a']\n${rep(n, (k) => `${ind(n - k)}except KeyError:\n${ind(n - k + 1)}x = ${k}\n`)}    return x == 1\n` }) },
  'py-elif': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    if state == 0:\n        x = 0\n${rep(n, (i) => `    elif state == ${i + 1}:\n        x = ${i}\n`)}    return x == 1\n` }) },
  'py-module-elif': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `import sys\nif sys.argv == 0:\n    x = 0\n${rep(n, (i) => `elif sys.argv == ${i + 1}:\n    x = ${i}\n`)}def grade(state):\n    return state == x\n` }) },
  'py-one-line': { n: 200000, files: (n) => ({ [`${PY}shape.py`]: `${rep(Math.ceil(n / 12), (i) => `u${i % 1000}==1;`)}\n` }) },
  'py-one-line-findings': { n: 200000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state): ${rep(Math.ceil(n / 16), (i) => `y=q${i % 1000}==1;`)}return y\n` }) },
  'py-bad-utf8-end': { n: 200000, files: (n) => ({ [`${PY}shape.py`]: Buffer.concat([Buffer.from(`def grade(state):\n${rep(Math.ceil(n / 24), (i) => `    v${i} = state[${i}]\n`)}    return v0 == 1\n# `), Buffer.from([0xff, 0xfe, 0xc3])]) }) },
  'py-functions': { n: 16000, files: (n) => ({ [`${PY}shape.py`]: rep(n, (i) => `def f${i}(state):\n    return state.get(${i}) == f${(i + 1) % n}\n\n`) + 'def grade(state):\n    return f0(state)\n' }) },
  'py-large-file': { n: 4_800_000, files: (n) => ({ [`${PY}shape.py`]: rep(Math.ceil(n / 40), (i) => `def f${i}(s):\n    return s.get(${i}) == ${i}\n\n`) }) },
  'py-try-calls': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `import os\n${rep(n, (i) => `try:\n    os.remove("f${i}")\nexcept OSError:\n    pass\n`)}def grade(state):\n    return state == 1\n` }) },
  'py-match-cases': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    match state:\n${rep(n, (i) => `        case ${i}:\n            x = ${i}\n`)}        case _:\n            x = -1\n    return x == 1\n` }) },
  // loops nested in loops: each runs its body to a fixpoint, so the passes multiply with the depth
  'py-nested-loops': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    x = None\n${rep(n, (k) => `${ind(k + 1)}for i${k} in state:\n`)}${ind(n + 1)}if x is None:\n${ind(n + 2)}y = i0\n${ind(n + 1)}x = y\n    return x == 1\n` }) },
  'py-nested-while': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    x = None\n${rep(n, (k) => `${ind(k + 1)}while state.get(${k}):\n`)}${ind(n + 1)}if x is None:\n${ind(n + 2)}y = state.pop()\n${ind(n + 1)}x = y\n${ind(n + 1)}if not x:\n${ind(n + 2)}break\n    return x == 1\n` }) },
  // range loops whose bodies test their own index (first pass, last pass): index facts on every level
  'py-nested-range-loops': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    x = None\n${rep(n, (k) => `${ind(k + 1)}for i${k} in range(3):\n${ind(k + 2)}if i${k} == 0:\n${ind(k + 3)}state.reset(${k})\n${ind(k + 2)}if i${k} < 2:\n${ind(k + 3)}continue\n`)}${ind(n + 1)}if x is None:\n${ind(n + 2)}y = i0\n${ind(n + 1)}x = y\n    return x == 1\n` }) },
  // a try in every loop (its body may raise to the handler of each level) and a return from the innermost
  'py-nested-loops-try': { n: 30, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    x = None\n${rep(n, (k) => `${ind(2 * k + 1)}for i${k} in state:\n${ind(2 * k + 2)}try:\n`)}${ind(2 * n + 1)}if x is None:\n${ind(2 * n + 2)}return y\n${ind(2 * n + 1)}y = x\n${rep(n, (k) => `${ind(2 * (n - k))}except KeyError:\n${ind(2 * (n - k) + 1)}x = ${k}\n`)}    return x == 1\n` }) },
  'py-module-nested-loops': { n: 40, files: (n) => ({ [`${PY}shape.py`]: `import sys\nx = None\n${rep(n, (k) => `${ind(k)}for i${k} in sys.argv:\n`)}${ind(n)}def f(s):\n${ind(n + 1)}return s == x\n${ind(n)}if x is None:\n${ind(n + 1)}y = i0\n${ind(n)}x = y\ndef grade(state):\n    return f(state)\n` }) },
  // a flat function of n statements of every kind (assignments, branches, loops, try, with, calls)
  'py-flat-statements': { n: 4000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    x = None\n${rep(n, (i) => [
    `    v${i} = state.get(${i})\n`,
    `    if v${i - 1} is None:\n        x = v${i - 1}\n    else:\n        state.log(x)\n`,
    `    for k${i} in state:\n        x = k${i}\n`,
    `    try:\n        x = state[${i}]\n    except KeyError:\n        pass\n`,
    `    with state.lock():\n        state.put(x, ${i})\n`,
    `    while state.more(${i}):\n        state.step()\n`,
  ][i % 6])}    return x == 1\n` }) },
  'py-nested-functions': { n: 400, files: (n) => ({ [`${PY}shape.py`]: `${rep(n, (k) => `${ind(k)}def f${k}(s${k}):\n`)}${ind(n)}return s0 == 1\n` }) },
  // regular expressions
  'json-regex-parens': { n: 20000, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': JSON.stringify({ type: 'ChimeraX', instruction: 'Log.', steps: 1, evaluate: [{ type: 'info', key: 'log', value: null, pattern: '('.repeat(n) }, { type: 'info', key: 'log', value: null, pattern: `${'(a'.repeat(n)}${')*'.repeat(n)}$` }] }) }) },
  // fuzz (issue 30): 2,379 patterns nested 1–600 levels in one CRLF file (each alone fast, the file > 100 s)
  'py-many-nested-regex': { n: 2379, files: (n, depth = 600) => ({ [`${PY}shape.py`]: `import os, re\r\ndef grade(state):\r\n${rep(n, (i) => `    p${i} = re.compile(r"${'(a'.repeat(1 + (i % depth))}${')*'.repeat(1 + (i % depth))}")\r\n`)}    return state == 1\r\n` }) },
  'py-regex-parens': { n: 20000, files: (n) => ({ [`${PY}shape.py`]: `import re\nA = re.compile(r"${'('.repeat(n)}")\nB = re.compile(r"${'(a'.repeat(n)}${')*'.repeat(n)}$")\ndef grade(state):\n    return bool(A.match(state)) and bool(B.match(state))\n` }) },
  // exit 2
  'py-suppressions': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    x${i} = 1  # vaudit: ignore[unbound-name]\n`)}    return True\n` }) },
  'py-returns': { n: 140000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    if state == ${i}:\n        return True\n`)}    return False\n` }) },
  // 140,000 as the issue reported are 7.4 MB: a config over the 5 MB limit is invalid (exit 2, never half-applied); 90,000 are 4.7 MB
  'config-ignores': { n: 90000, files: (n) => ({ 'vaudit.config.json': JSON.stringify({ ignores: Array.from({ length: n }, (_, i) => ({ files: `nowhere/f${i}.py`, rules: ['unbound-name'] })) }) }) },
  'json-duplicate-members': { n: 5_000_000, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': `{"type":"ChimeraX","instruction":"x","evaluate":[],${rep(Math.ceil(n / 12), (i) => `"k":${i % 1000000},`)}"k":0}` }) },
  // flat constructs with one node of n children (the second fuzz pass): a comparison chain, in a verifier and
  // in a task's lambda; names in one global/nonlocal statement; sequential try blocks; a chain of subclasses
  'py-compare-chain': { n: 100_000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    return ${Array.from({ length: n }, (_, i) => `a${i % 50}`).join(' < ')}\n` }) },
  'json-lambda-compare-chain': { n: 32_000, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': JSON.stringify({ type: 'ChimeraX', instruction: 'x', steps: 1, initialize: [], evaluate: [{ type: 'states', key: `lambda d: ${Array.from({ length: n }, () => 'd').join(' < ')}`, value: 1 }] }) }) },
  'py-global-names': { n: 16_000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n    global ${Array.from({ length: n }, (_, i) => `g${i}`).join(', ')}\n    g0 = 1\n    return g0 == state\n` }) },
  'py-nonlocal-names': { n: 16_000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    g${i} = 0\n`)}    def inner():\n        nonlocal ${Array.from({ length: n }, (_, i) => `g${i}`).join(', ')}\n        g1 = 2\n    inner()\n    return g1 == state\n` }) },
  'py-try-sequential': { n: 16_000, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    try:\n        v = state.f${i}()\n    except KeyError:\n        pass\n`)}    return v == 1\n` }) },
  // (the chain of task-like classes is a class registry: with the default scope only it would be checked)
  'py-class-chain': { n: 16_000, files: (n) => ({ 'vaudit.config.json': JSON.stringify({ scope: 'all' }), [`${PY}shape.py`]: `class C0:\n    def eval(self, state):\n        return state == 1\n${rep(n, (i) => `class C${i + 1}(C${i}):\n    def eval(self, state):\n        return super().eval(state)\n`)}def grade(state):\n    return C${n}().eval(state)\n` }) },
  // issue 30, item 5 (memory): files just under the 5 MB read limit, one shape per language and kind of bulk —
  // many small units (functions, declarations, members), long literals, nesting under every depth limit,
  // many embedded lambdas. `n` is the count that makes the file about 5,000,000 bytes (`--batch K` checks K
  // copies in one run: the bound is on the whole run).
  'py-max-functions': { n: 101_400, files: (n) => ({ [`${PY}shape.py`]: rep(n, (i) => `def f${i}(s):\n    return s.get(${i}) == ${i}\n\n`) }) },
  'py-max-strings': { n: 4_900, files: (n) => ({ [`${PY}shape.py`]: `${rep(n, (i) => `S${i} = "${'x'.repeat(1000)}"\n`)}def grade(state):\n    return state == S0\n` }) },
  'py-max-nesting': { n: 274, files: (n, depth = 90) => ({ [`${PY}shape.py`]: `def grade(s):\n    x = 0\n${rep(n, (b) => rep(depth, (k) => `${ind(k + 1)}if s.get(${b * depth + k}):\n`) + `${ind(depth + 1)}x = ${b}\n`)}    return x == 1\n` }) },
  'py-max-brackets': { n: 12_700, files: (n, depth = 190) => ({ [`${PY}shape.py`]: `${rep(n, (i) => `V${i} = ${'['.repeat(depth)}${i}${']'.repeat(depth)}\n`)}def grade(state):\n    return state == V0\n` }) },
  'py-max-statements': { n: 197_300, files: (n) => ({ [`${PY}shape.py`]: `def grade(state):\n${rep(n, (i) => `    v = state.get(${i})\n`)}    return v == 1\n` }) },
  'js-max-consts': { n: 199_400, files: (n) => ({ [`${JS}shape.js`]: `export default async function evaluate(page) {\n${rep(n, (i) => `  const a${i} = ${i};\n`)}  return { _success: page.x === a0 };\n}\n` }) },
  'js-max-functions': { n: 98_500, files: (n) => ({ [`${JS}shape.js`]: `${rep(n, (i) => `function f${i}(page) { return page.x === ${i}; }\n`)}export default async function evaluate(page) {\n  return { _success: f0(page) };\n}\n` }) },
  'js-max-objects': { n: 116_900, files: (n) => ({ [`${JS}shape.js`]: `const DATA = [\n${rep(n, (i) => `  { id: ${i}, name: "n${i}", ok: true },\n`)}];\nexport default async function evaluate(page) {\n  return { _success: page.x === DATA[0].id };\n}\n` }) },
  'ts-max-declarations': { n: 152_900, files: (n) => ({ [`${JS}shape.ts`]: `export default async function evaluate(page: { x: number }): Promise<{ _success: boolean }> {\n${rep(n, (i) => `  const a${i}: number = ${i};\n`)}  return { _success: page.x === a0 };\n}\n` }) },
  'json-max-members': { n: 307_500, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': `{"type":"ChimeraX","instruction":"x","steps":1,"evaluate":[],"extra":{${rep(n, (i) => `"k${i}":${i},`)}"end":0}}` }) },
  'json-max-array': { n: 735_500, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': `{"type":"ChimeraX","instruction":"x","steps":1,"evaluate":[],"data":[${rep(n, (i) => `${i},`)}0]}` }) },
  'json-max-lambdas': { n: 81_100, files: (n) => ({ 'tasks/VM/ChimeraX/shape.json': JSON.stringify({ type: 'ChimeraX', instruction: 'x', steps: 1, initialize: [], evaluate: Array.from({ length: n }, (_, i) => ({ type: 'states', key: `lambda d: d['m${i}']`, value: i })) }) }) },
};

/** Every file of a check: the neighbours, the shape (`copies` of it: shape1, shape2, …, when more than
 *  one), and the eval list naming the JS verifiers. */
export function suiteFiles(shape, n, copies = 1) {
  const own = SHAPES[shape].files(n);
  const files = { ...NEIGHBOURS };
  for (let c = 1; c <= copies; c++) for (const [rel, data] of Object.entries(own)) files[copies > 1 ? rel.replace(/shape(\.\w+)$/, `shape${c}$1`) : rel] = data;
  const evals = Object.keys(files).filter((f) => f.startsWith(JS)).map((f) => path.basename(f).replace(/\.[jt]s$/, ''));
  files['js/evals.json'] = JSON.stringify({ evals });
  return files;
}

export function writeSuite(dir, files) {
  for (const [rel, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
  }
}

/** Run the CLI once: exit, signal, wall ms, peak RSS (KB), the report's findings. */
function runCheck(dir, timeout, cli = bin) {
  const t0 = performance.now();
  // the bound is `timeout`'s (it kills the CLI itself: a spawnSync timeout would only end /usr/bin/time)
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', 'timeout', '-s', 'KILL', `${Math.ceil(timeout / 1000)}`, process.execPath, cli, 'check', '.', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = Math.round(performance.now() - t0);
  const lines = (r.stderr ?? '').trim().split('\n');
  const [rss, user, sys] = (lines.at(-1) ?? '').split(' ').map(Number);
  let findings;
  try { findings = JSON.parse(r.stdout).findings; } catch { findings = undefined; }
  const status = r.status === 137 || r.status === 124 ? 'timeout' : r.status;
  const cpuMs = Number.isFinite(user) && Number.isFinite(sys) ? Math.round((user + sys) * 1000) : 0;
  return { status, signal: r.signal, ms, cpuMs, rssMb: Number.isFinite(rss) ? Math.round(rss / 1024) : 0, findings, stderr: lines.slice(0, -1).join('\n').slice(0, 400) };
}

function summarise(shape, n, res) {
  const ok = (res.status === 0 || res.status === 1) && !res.signal && res.findings
    && Object.entries(NEIGHBOUR_FINDINGS).every(([f, ids]) => ids.every((id) => res.findings.some((x) => x.file === f && x.ruleId === id)));
  const own = res.findings ? res.findings.filter((f) => !(f.file in NEIGHBOURS)) : [];
  const byRule = {};
  for (const f of own) byRule[`${f.ruleId}${f.messageId && f.ruleId === 'parse-error' ? `/${f.messageId}` : ''}`] = (byRule[`${f.ruleId}${f.messageId && f.ruleId === 'parse-error' ? `/${f.messageId}` : ''}`] ?? 0) + 1;
  const special = own.find((f) => ['parse-error', 'internal-error'].includes(f.ruleId));
  return { shape, n, ok, exit: res.status, signal: res.signal, ms: res.ms, cpuMs: res.cpuMs, rssMb: res.rssMb, findings: byRule, message: special?.message.slice(0, 200), stderr: ok ? undefined : res.stderr };
}

/** The shapes `--scaling` measures by default (issue 30: functions, variables, branches, handlers, `elif`
 *  chains, statements, nested loops), with the sizes each is measured at: counts, or nesting depths
 *  under CPython's 100 levels of indentation. */
export const SCALING = {
  'py-functions': [1000, 4000, 16000],
  'py-function-variables': [1000, 4000, 16000],
  'py-module-variables': [1000, 4000, 16000],
  'py-returns': [1000, 4000, 16000],
  'py-elif': [1000, 4000, 16000],
  'py-module-elif': [1000, 4000, 16000],
  'py-try-handlers': [1000, 4000, 16000],
  'py-try-variables': [1000, 4000, 16000],
  'py-match-cases': [1000, 4000, 16000],
  'py-flat-statements': [1000, 4000, 16000],
  'js-else-if-chain': [1000, 4000, 16000],
  'js-comma-sequence': [4000, 16000, 64000],
  'js-consts': [4000, 16000, 64000],
  'js-let-declarators': [4000, 16000, 64000],
  'js-module-functions': [4000, 16000, 64000],
  'ts-unicode-escape-consts': [4000, 16000, 64000],
  'py-nested-loops': [10, 20, 40, 80],
  'py-nested-while': [10, 20, 40, 80],
  'py-nested-range-loops': [10, 20, 40, 80],
  'py-module-nested-loops': [10, 20, 40, 80],
  'py-nested-loops-try': [6, 12, 24, 48],
  'py-nested-try-except': [6, 12, 24, 48],
  'js-nested-loops': [10, 20, 40, 80],
  'ts-nested-loops': [10, 20, 40, 80],
  'py-compare-chain': [1000, 4000, 16000],
  'json-lambda-compare-chain': [1000, 4000, 16000],
  'py-global-names': [1000, 4000, 16000],
  'py-nonlocal-names': [1000, 4000, 16000],
  'py-try-sequential': [1000, 4000, 16000],
  'py-class-chain': [1000, 4000, 16000],
  // the files near the 5 MB limit (issue 30, item 5): 1/16, 1/4 and all of the count that makes about 5 MB
  'py-max-functions': [6337, 25350, 101400],
  'py-max-strings': [306, 1225, 4900],
  'py-max-nesting': [17, 68, 274],
  'py-max-brackets': [793, 3175, 12700],
  'py-max-statements': [12331, 49325, 197300],
  'js-max-consts': [12462, 49850, 199400],
  'js-max-functions': [6156, 24625, 98500],
  'js-max-objects': [7306, 29225, 116900],
  'ts-max-declarations': [9556, 38225, 152900],
  'json-max-members': [19218, 76875, 307500],
  'json-max-array': [45968, 183875, 735500],
  'json-max-lambdas': [5068, 20275, 81100],
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One check of `files` by each CLI, `runs` times alternated: the median wall, CPU and RSS per CLI. */
function measure(work, tag, files, clis, runs, timeout) {
  const dir = path.join(work, tag);
  writeSuite(dir, files);
  const got = clis.map(() => []);
  for (let r = 0; r < runs; r++) clis.forEach((cli, i) => got[i].push(runCheck(dir, timeout, cli)));
  rmSync(dir, { recursive: true, force: true });
  return got.map((rs) => ({ ...rs[rs.length - 1], ms: median(rs.map((x) => x.ms)), cpuMs: median(rs.map((x) => x.cpuMs)), rssMb: median(rs.map((x) => x.rssMb)) }));
}

function scaling({ work, timeout, only, sizes, runs, repo, json, batch }) {
  const clis = [bin, ...(repo ? [path.join(path.resolve(repo), 'bin', 'vaudit.js')] : [])];
  const names = repo ? ['this', path.basename(path.resolve(repo))] : ['this'];
  const evalList = (files) => ({ ...files, 'js/evals.json': JSON.stringify({ evals: Object.keys(files).filter((f) => f.startsWith(JS)).map((f) => path.basename(f).replace(/\.[jt]s$/, '')) }) });
  // the floor: the neighbours alone (node's start, the rules, the neighbours' own analysis)
  const floor = measure(work, 'floor', evalList({ ...NEIGHBOURS }), clis, runs, timeout);
  const rows = [];
  for (const shape of only ?? Object.keys(SCALING)) {
    let prev;
    for (const n of sizes ?? SCALING[shape] ?? [1000, 4000, 16000]) {
      const res = measure(work, `${shape}-${n}`, suiteFiles(shape, n, batch), clis, runs, timeout);
      const row = { shape, n, step: prev ? n / prev.n : undefined, by: res.map((r, i) => {
        const s = summarise(shape, n, r);
        const above = { cpuMs: Math.max(1, s.cpuMs - floor[i].cpuMs), rssMb: Math.max(0, s.rssMb - floor[i].rssMb) };
        // a growth from under 50 ms above the floor is noise (/usr/bin/time counts CPU in 10 ms steps)
        const growth = prev && s.ok && prev.by[i].ok && prev.by[i].above.cpuMs >= 50 ? +(above.cpuMs / prev.by[i].above.cpuMs).toFixed(2) : undefined;
        return { cli: names[i], ok: s.ok, ms: s.ms, cpuMs: s.cpuMs, rssMb: s.rssMb, above, growth, findings: s.findings };
      }) };
      if (json) for (const b of row.by) console.log(JSON.stringify({ shape, n, step: row.step, ...b, floorCpuMs: floor[names.indexOf(b.cli)].cpuMs, floorRssMb: floor[names.indexOf(b.cli)].rssMb }));
      rows.push(row);
      prev = row;
    }
  }
  if (json) return;
  const fl = floor.map((f, i) => `${names[i]}: ${f.cpuMs} ms CPU, ${f.rssMb} MB`).join('; ');
  console.log(`floor (the neighbours alone): ${fl}; runs per cell: ${runs}, median; files of the shape per check: ${batch}\n`);
  const head = names.map((nm) => `${nm}: wall ms | CPU ms | RSS MB | CPU above floor | RSS above floor | growth | findings`).join(' | ');
  console.log(`| shape | n | input ×| ${head} |`);
  console.log(`|---|---|---|${names.map(() => '---|---|---|---|---|---|---|').join('')}`);
  for (const r of rows) {
    const cells = r.by.map((b) => `${b.ms} | ${b.cpuMs} | ${b.rssMb} | ${b.above.cpuMs} | ${b.above.rssMb} | ${b.growth === undefined ? '' : `×${b.growth}`} | ${b.ok ? '' : 'FAILED '}${Object.entries(b.findings).map(([k, v]) => `${k} ${v}`).join(', ')}`).join(' | ');
    console.log(`| ${r.shape} | ${r.n} | ${r.step === undefined ? '' : `×${r.step}`} | ${cells} |`);
  }
}

function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
  if (args.includes('--list')) { for (const [k, v] of Object.entries(SHAPES)) console.log(`${k}\t${v.n}`); return; }
  const only = opt('only', undefined)?.split(',');
  const timeout = Number(opt('timeout-ms', 120000));
  const work = mkdtempSync(path.join(tmpdir(), 'vaudit-shapes-'));
  try {
    if (args.includes('--scaling')) {
      scaling({ work, timeout, only, sizes: opt('sizes', undefined)?.split(',').map(Number), runs: Number(opt('runs', 1)), repo: opt('repo', undefined), json: args.includes('--json'), batch: Number(opt('batch', 1)) });
      return;
    }
    const scale = Number(opt('scale', 1));
    let failed = 0;
    for (const [shape, def] of Object.entries(SHAPES)) {
      if (only && !only.includes(shape)) continue;
      const n = Math.round(def.n * scale);
      const dir = path.join(work, shape);
      writeSuite(dir, suiteFiles(shape, n));
      const s = summarise(shape, n, runCheck(dir, timeout));
      if (!s.ok) failed++;
      console.log(JSON.stringify(s));
      rmSync(dir, { recursive: true, force: true });
    }
    console.error(`${failed} shape(s) failed`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();

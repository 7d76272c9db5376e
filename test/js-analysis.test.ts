/** Plain JavaScript analysis: scopes and unbound names, unbounded calls, set comparisons. */
import { parse, type AnyNode, type Program } from 'acorn';
import { describe, expect, it } from 'vitest';
import { jsScopes, unboundedCall, setSizeComparison, everyHasComparison } from '../src/lang/js/index.js';
import { parseAcorn } from '../src/lang/js/parse.js';

const mod = (t: string) => parse(t, { ecmaVersion: 'latest', sourceType: 'module' }) as Program;
const script = (t: string) => parse(t, { ecmaVersion: 'latest', sourceType: 'script' }) as Program;
const unbound = (p: Program) => jsScopes(p).unbound.map((r) => r.id.name);

function nodes(p: Program, type: string): AnyNode[] {
  const out: AnyNode[] = [];
  const visit = (n: any): void => {
    if (!n || typeof n.type !== 'string') return;
    if (n.type === type) out.push(n);
    for (const k of Object.keys(n)) {
      const v = n[k];
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') visit(v);
    }
  };
  visit(p);
  return out;
}

describe('parseAcorn (acorn with indexed scope name lists, issue 30)', () => {
  // the same tree or the same error as acorn itself, redeclarations above all (what the index answers)
  const outcome = (f: typeof parse, text: string, sourceType: 'module' | 'script') => {
    try {
      return JSON.stringify(f(text, { ecmaVersion: 'latest', sourceType, locations: true }));
    } catch (e) {
      return `${(e as Error).message} @${(e as { pos?: number }).pos}`;
    }
  };
  it.each([
    'let a; let a;', 'var a; let a;', 'let a; var a;', 'var a; var a; let b = a;', 'function f(){} let f;', 'function f(){} function f(){}',
    '{ function f(){} function f(){} }', 'try {} catch (e) { var e; }', 'try {} catch (e) { let e; }', 'try {} catch ([e]) { var e; }',
    'export { a };', 'export { a }; var a;', 'const a = 1; { var a; }', 'function g(a) { let a; }', 'function g(a) { var a; }',
    'class C { static { var x; let x; } }', 'for (let i;;) { var i; }', 'const \\u0061 = 1; let a;', 'let a0 = 0, a1 = 1, a0x = a0 + a1, a1 = 2;',
  ])('%s', (text) => {
    for (const sourceType of ['module', 'script'] as const) expect(outcome(parseAcorn, text, sourceType)).toBe(outcome(parse, text, sourceType));
  });
});

describe('scopes', () => {
  it('knows hoisting, destructuring defaults, classes, labels and globals', () => {
    const p = mod(`f(); function f() { return g + h + Math.PI + process.pid + window.x; } var g = 1;
      const { a = dflt, ...rest } = {}; label: for (const i of [1]) break label;
      class C { #x = 1; m() { return this.#x + C.name + arguments.length; } }
      export { a as b, rest };`);
    expect(unbound(p)).toEqual(['h', 'dflt']);
  });
  it('does not report typeof guards, with bodies, or implicit globals of sloppy scripts', () => {
    expect(unbound(script(`if (typeof jQuery !== 'undefined') {} with (o) { x; } counter = 1; counter++;`))).toEqual(['o']);
    expect(unbound(mod(`counter = 1;`))).toEqual(['counter']);
  });
  it('resolves block scoping: a name declared in one branch is unbound in another', () => {
    expect(unbound(mod(`if (a0) { const found = 1; } else { found; } let a0;`))).toEqual(['found']);
  });
  it('binds a module only to a string specifier (`await import(1)` loads no module named 1)', () => {
    const sc = jsScopes(mod(`const cp = await import('node:child_process'); const n = await import(1); var r = require('os'); cp; n; r;`));
    const moduleOf = (name: string) => sc.references.find((x) => x.id.name === name)?.binding?.module;
    expect(moduleOf('cp')).toEqual({ from: 'node:child_process', imported: '*' });
    expect(moduleOf('n')).toBeUndefined();
    expect(moduleOf('r')).toEqual({ from: 'os', imported: '*' });
  });
});

describe('unbounded calls', () => {
  const calls = (t: string) => {
    const p = mod(t);
    return nodes(p, 'CallExpression').map((c) => unboundedCall(c, p)?.callee).filter(Boolean);
  };
  it('resolves child_process through imports, namespaces, aliases and require', () => {
    expect(calls(`import * as cp from 'child_process'; const c2 = cp; c2.execSync('x'); cp.execSync('y', { timeout: 5 });`)).toEqual(['execSync']);
    expect(calls(`const { spawnSync: s } = require('node:child_process'); s('a', ['b']); s('a', ['b'], { timeout: 1 });`)).toEqual(['spawnSync']);
    expect(calls(`import { execSync } from './local.js'; execSync('x');`)).toEqual([]);
  });
  it('treats unknown options as bounded, literal options without the key as unbounded', () => {
    expect(calls(`import { execFileSync } from 'child_process'; export function f(o) { execFileSync('a', ['b'], o); execFileSync('a', ['b'], { cwd: '/' }); }`)).toEqual(['execFileSync']);
    expect(calls(`await fetch('u'); await fetch('u', { signal: s }); const fetch2 = fetch; function g(fetch) { fetch('x'); }`)).toEqual(['fetch']);
  });
});

describe('set comparisons', () => {
  it('flags size equality and every/has over sets built from sequences only', () => {
    const p = mod(`const A = new Set(xs); const B = new Set(ys); const E = new Set();
      A.size === B.size; E.size === A.size; xs.length === ys.length; xs.every((x) => B.has(x)); xs.every((x) => E.has(x));`);
    expect(nodes(p, 'BinaryExpression').filter((n) => setSizeComparison(n, p))).toHaveLength(1);
    expect(nodes(p, 'CallExpression').filter((n) => everyHasComparison(n, p))).toHaveLength(1);
  });
});

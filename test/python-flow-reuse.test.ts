/**
 * An editor session re-parses an edited file incrementally, and the new analysis takes over the flow of
 * the execution units the edit provably left alone (`Analysis.flowReuse`): their entries are copied
 * from the previous flow instead of run again. After any chain of edits the flow (every reachable name
 * read with its reaching definitions, every binding's definition, class-body fallbacks) and the
 * unbound reads must equal those of a fresh analysis of the same text. Every Python file of the real
 * corpora goes through seeded edits, mostly inside function bodies (where units are taken over), some
 * anywhere; a reuse that ignores the conditions must fail the same comparison.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { rng } from './helpers/rng.js';
import { change, spot } from './helpers/py-edits.js';
import { SourceText, type SourceFile } from '../src/core/source.js';
import { analysePython, createPythonProject } from '../src/lang/python/project.js';
import type { Analysis } from '../src/lang/python/analysis.js';
import { runFlow, type Def, type FlowResult } from '../src/lang/python/flow.js';
import { PYTHON_BUILTINS } from '../src/lang/python/builtins.js';
import type { PythonAnalysis, PythonProject } from '../src/lang/python/types.js';
import { walk, type PyNode } from '../src/lang/python/tree.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');
const files = [...pyFiles(path.join(corpora, 'scienceboard')), ...pyFiles(path.join(corpora, 'spider2v'))];

function defHead(d: Def): string {
  return `${d.kind}:${d.key}:${d.node ? d.node.start : '-'}:${d.value ? `${d.value.start}-${d.value.end}` : '-'}:${d.index?.join('.') ?? ''}:${d.narrowed ?? ''}`;
}
function defText(d: Def): string {
  // a narrowing's refined definitions one level down (chains of narrowings repeat them)
  return `${defHead(d)}:${d.base?.map(defHead).sort().join('|') ?? ''}`;
}

/** The flow as positions and definition contents (ids differ between a fresh run and one that copied units). */
function dump(a: PythonAnalysis, flow: FlowResult): string {
  const out: string[] = [];
  const at = (n: PyNode) => `${n.type}@${n.start}-${n.end}`;
  for (const n of [...flow.reachable].sort((x, y) => x.start - y.start || x.end - y.end)) {
    const defs = flow.readDefs.get(n);
    out.push(`read ${at(n)} ${flow.classFallback.has(n) ? 'fallback ' : ''}${defs ? [...defs].map(defText).sort().join(' ') : '(untracked)'}`);
  }
  for (const [n, d] of [...flow.defAt].sort((x, y) => x[0].start - y[0].start)) out.push(`bind ${at(n)} ${defText(d)}`);
  for (const u of a.unboundReads()) out.push(`unbound ${u.kind} ${u.name} ${at(u.node)}`);
  return out.join('\n');
}

/** Every call's description (`PythonAnalysis.call`), by position: what a reused description must equal. */
function callDump(a: PythonAnalysis): string {
  const out: string[] = [];
  walk(a.ast, (n) => {
    if (n.type !== 'call') return;
    const c = a.call(n);
    const at = (x: PyNode | undefined) => (x ? `${x.type}@${x.start}-${x.end}` : '-');
    out.push(c ? `${at(n)} ${c.qualified ?? '?'} ${c.calleeText} ${c.method} ${at(c.fn)} ${at(c.receiver)} [${c.args.map(at).join(' ')}] {${[...c.kwargs].map(([k, v]) => `${k}=${at(v)}`).join(' ')}} ${c.hasStarArgs} ${c.hasStarKwargs}` : `${at(n)} none`);
  });
  return out.join('\n');
}

function sourceFile(abs: string, text: string): SourceFile {
  return { path: abs, relPath: path.basename(abs), language: 'python', source: new SourceText(text) };
}

/** The flow of `a` (the edited file's new analysis) with every unit the previous flow has taken over, conditions ignored. */
function brokenReuse(a: Analysis, prev: FlowResult): FlowResult {
  return runFlow({
    text: a.text,
    table: a.scopes,
    isBuiltin: (n) => PYTHON_BUILTINS.has(n),
    staticTruth: (n) => a.staticTruth(n),
    isNoReturnCall: (call, scope) => a.isNoReturnCall(call, scope),
    atomTest: (n) => a.conditions.test(n),
  }, { prev, reusable: (sc) => prev.units.has(sc.node) });
}

describe.skipIf(files.length === 0)('flow taken over across edits equals a fresh flow (real corpora)', () => {
  it(`chains of edits over ${files.length} files`, async () => {
    const r = rng(7);
    let reused = 0;
    let callsReused = 0;
    for (const file of files) {
      const abs = path.resolve(file);
      let text = readFileSync(file, 'utf8');
      const keepTrees = new Set([abs]);
      let project: PythonProject = await createPythonProject([sourceFile(abs, text)], { keepTrees });
      void project.analysis(abs)!.flow;
      for (let i = 0; i < 5; i++) {
        const before = project.analysis(abs)!;
        const prevFlow = before.flow;
        // every call described, as the rules of a lint ask
        const prevCalls = new Map<PyNode, unknown>();
        walk(before.ast, (n) => void (n.type === 'call' && prevCalls.set(n, before.call(n))));
        text = change(text, spot(before, r), r);
        const next = await createPythonProject([sourceFile(abs, text)], { reuse: project, keepTrees });
        project.dispose();
        project = next;
        const a = project.analysis(abs)! as Analysis;
        const flow = a.flow;
        for (const [node, log] of flow.units) if (prevFlow.units.get(node) === log) reused++;
        const fresh = await analysePython(text, abs);
        const want = dump(fresh, fresh.flow);
        const got = dump(a, flow);
        if (got !== want) expect(got, `${path.relative(corpora, file)}, edit ${i + 1}`).toBe(want);
        walk(a.ast, (n) => void (n.type === 'call' && prevCalls.has(n) && a.call(n) !== undefined && a.call(n) === prevCalls.get(n) && callsReused++));
        const gotCalls = callDump(a);
        const wantCalls = callDump(fresh);
        if (gotCalls !== wantCalls) expect(gotCalls, `${path.relative(corpora, file)}, edit ${i + 1}: calls`).toBe(wantCalls);
      }
      project.dispose();
    }
    expect(reused).toBeGreaterThan(files.length); // most edits inside a body keep the other units
    expect(callsReused).toBeGreaterThan(files.length); // and their calls' descriptions
  }, 600_000);
});

/** Edits inside one function that change the flow of another unit: the conditions refuse to take it over,
 *  and a reuse that ignores them (every unit whose node the parse took over) gives a different flow. */
const CROSS_UNIT: Array<{ name: string; before: string; after: string }> = [
  {
    name: 'a helper that now always raises (code after its call becomes unreachable)',
    before: 'def fail():\n    print("x")\n\n\ndef main():\n    fail()\n    y = 1\n    return y\n',
    after: 'def fail():\n    print("x")\n    raise ValueError()\n\n\ndef main():\n    fail()\n    y = 1\n    return y\n',
  },
  {
    name: 'an enclosing function that now binds the name a nested function calls',
    before: 'def helper():\n    raise ValueError()\n\n\ndef outer():\n    helperx = print\n    def inner():\n        helper()\n        z = 1\n        return z\n    return inner\n',
    after: 'def helper():\n    raise ValueError()\n\n\ndef outer():\n    helper = print\n    def inner():\n        helper()\n        z = 1\n        return z\n    return inner\n',
  },
  {
    name: 'a local import that rebinds a module name another function exits through',
    before: 'from sys import exit as leave\n\n\ndef a():\n    from os import path as leavex\n\n\ndef b():\n    leave(1)\n    w = 2\n    return w\n',
    after: 'from sys import exit as leave\n\n\ndef a():\n    from os import path as leave\n\n\ndef b():\n    leave(1)\n    w = 2\n    return w\n',
  },
];

describe('call descriptions taken over across an edit', () => {
  it('are described again inside the edited function, where a new local binding shadows what a call names', async () => {
    const abs = path.join(repoRoot, 'mod.py');
    const keepTrees = new Set([abs]);
    const before = 'import subprocess\n\n\ndef a():\n    subprocessx = None\n    subprocess.run(["x"])\n\n\ndef b():\n    subprocess.run(["y"])\n';
    const after = before.replace('subprocessx = None', 'subprocess = None');
    const first = await createPythonProject([sourceFile(abs, before)], { keepTrees });
    const a0 = first.analysis(abs)!;
    void a0.flow;
    const calls0 = new Map<PyNode, unknown>();
    walk(a0.ast, (n) => void (n.type === 'call' && calls0.set(n, a0.call(n))));
    const second = await createPythonProject([sourceFile(abs, after)], { reuse: first, keepTrees });
    first.dispose();
    const a = second.analysis(abs)!;
    void a.flow;
    const fresh = await analysePython(after, abs);
    expect(callDump(a)).toBe(callDump(fresh));
    const qualified: string[] = [];
    const takenOver: boolean[] = [];
    const kept: boolean[] = [];
    walk(a.ast, (n) => {
      if (n.type !== 'call') return;
      qualified.push(a.call(n)!.qualified ?? '?');
      takenOver.push(calls0.has(n));
      kept.push(calls0.get(n) === a.call(n));
    });
    // the call in a() is a node the parse took over, yet names a local now; b()'s call is kept
    expect(takenOver).toEqual([true, true]);
    expect(qualified).toEqual(['?', 'subprocess.run']);
    expect(kept).toEqual([false, true]);
    second.dispose();
  });
});

describe('flow reuse refuses edits that reach other units', () => {
  for (const c of CROSS_UNIT) {
    it(c.name, async () => {
      const abs = path.join(repoRoot, 'mod.py');
      const keepTrees = new Set([abs]);
      const first = await createPythonProject([sourceFile(abs, c.before)], { keepTrees });
      const prevFlow = first.analysis(abs)!.flow;
      const second = await createPythonProject([sourceFile(abs, c.after)], { reuse: first, keepTrees });
      first.dispose();
      const a = second.analysis(abs)! as Analysis;
      const fresh = await analysePython(c.after, abs);
      const want = dump(fresh, fresh.flow);
      expect(dump(a, a.flow)).toBe(want);
      const broken = brokenReuse(a, prevFlow);
      expect([...broken.units.keys()].some((n) => prevFlow.units.get(n) === broken.units.get(n))).toBe(true);
      expect(dump(fresh, broken)).not.toBe(want);
      second.dispose();
    });
  }
});
if (files.length === 0) console.warn(`python-flow-reuse: no corpora at ${corpora}; skipped`);

/** The Python analysis core: scopes, definite assignment, constants, calls, swallowing, binding, speed. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analysePython, createPythonProject } from '../src/lang/python/project.js';
import { SourceText } from '../src/core/source.js';
import type { SourceFile } from '../src/core/source.js';
import type { PythonAnalysis } from '../src/lang/python/types.js';

const unbound = async (code: string) => {
  const a = await analysePython(code);
  const out = a.unboundReads().map((r) => `${a.line(r.node)}:${r.name}:${r.kind}`);
  return out;
};
/** The nth identifier `name` (whole word, outside strings) of the unit. */
const at = (a: PythonAnalysis, name: string, nth = 0) => {
  const hits = a.scopes.reads.map((r) => r.node).filter((n) => a.src(n) === name).sort((x, y) => x.start - y.start);
  return hits[nth]!;
};

describe('definite assignment', () => {
  it('keeps "possibly unbound" and "unbound on every path" apart', async () => {
    expect(await unbound('def f(c):\n    if c:\n        x = 1\n    return x\n')).toEqual(['4:x:maybe']);
    expect(await unbound('def f():\n    y = x\n    x = 1\n')).toEqual(['2:x:unbound']);
    expect(await unbound('def f():\n    return nowhere\n')).toEqual(['2:nowhere:undefined']);
  });
  it('follows early exits, loops with else, try/except/else/finally, with, match', async () => {
    const ok = [
      'def f(c):\n    if c:\n        x = 1\n    else:\n        return 0\n    return x\n',
      'def f(xs):\n    for v in xs:\n        if v:\n            h = v\n            break\n    else:\n        raise KeyError\n    return h\n',
      'def f(t):\n    try:\n        v = int(t)\n    except ValueError:\n        return 0\n    else:\n        w = v\n    finally:\n        pass\n    return w\n',
      'def f(p):\n    with open(p) as fh:\n        d = fh.read()\n    return d\n',
      'def f(k):\n    match k:\n        case "a":\n            r = 1\n        case _:\n            r = 2\n    return r\n',
      'def f():\n    while True:\n        z = 1\n        break\n    return z\n',
      'def f(c):\n    if not c:\n        assert False\n    else:\n        q = 1\n    return q\n',
      'import sys\ndef f(c):\n    if c:\n        q = 1\n    else:\n        sys.exit(1)\n    return q\n',
    ];
    for (const code of ok) expect(await unbound(code), code).toEqual([]);
    expect(await unbound('def f(t):\n    try:\n        v = int(t)\n    except ValueError:\n        pass\n    return v\n')).toEqual(['6:v:maybe']);
    expect(await unbound('def f(k):\n    match k:\n        case "a":\n            r = 1\n    return r\n')).toEqual(['5:r:maybe']);
    expect(await unbound('def f(t):\n    try:\n        pass\n    except ValueError as e:\n        pass\n    return e\n')).toEqual(['6:e:unbound']);
  });
  it('knows class bodies do not enclose methods and comprehension variables do not leak', async () => {
    expect(await unbound('class C:\n    a = 1\n    def m(self):\n        return a\n')).toEqual(['4:a:undefined']);
    expect(await unbound('def f(rows):\n    n = [r for r in rows]\n    return r\n')).toEqual(['3:r:undefined']);
    expect(await unbound('def f(xs):\n    total = 0\n    def g():\n        nonlocal total\n        total += 1\n    return g\n')).toEqual([]);
  });
});

describe('constants and narrowing', () => {
  it('knows a local is still None on a path', async () => {
    const a = await analysePython('def f(item, m):\n    k = None\n    if item:\n        k = item\n    elif m:\n        return k not in m\n    return k in m\n');
    const w = a.noneOnSomePath(at(a, 'k', 0));
    expect(w?.always).toBe(true);
    expect(a.line(w!.site)).toBe(2);
    expect(a.noneOnSomePath(at(a, 'k', 1))?.always).toBe(false);
  });
  it('treats `x is None` as establishing None and `is not None` as excluding it', async () => {
    const a = await analysePython('def f(e, s):\n    t = e.get("t")\n    if t is None:\n        return s.get(t)\n    return s.get(t)\n');
    expect(a.noneOnSomePath(at(a, 't', 1))).toBeDefined();
    expect(a.noneOnSomePath(at(a, 't', 2))).toBeUndefined();
  });
});

describe('project: imports, call resolution, swallowing, binding', () => {
  const file = (root: string, rel: string, text: string): SourceFile => ({ path: path.join(root, rel), relPath: rel, language: 'python', source: new SourceText(text) });
  it('resolves a relative-imported swallowing decorator and the verdict it returns', async () => {
    const root = '/virtual/proj';
    const files = [
      file(root, 'v/__init__.py', ''),
      file(root, 'v/base/__init__.py', ''),
      file(root, 'v/base/utils.py', 'def error_factory(default):\n    def deco(fn):\n        def w(*a):\n            try:\n                return fn(*a)\n            except Exception:\n                return default\n        return w\n    return deco\n'),
      file(root, 'v/cx/__init__.py', ''),
      file(root, 'v/cx/mixin.py', 'from ..base.utils import error_factory\n\nclass M:\n    @error_factory(False)\n    def _eval_states(self, item, states):\n        return raw_keys\n'),
    ];
    const py = await createPythonProject(files);
    expect(py.moduleName(path.join(root, 'v/cx/mixin.py'))).toBe('v.cx.mixin');
    const a = py.analysis(path.join(root, 'v/cx/mixin.py'))!;
    const [r] = a.unboundReads();
    expect(r?.name).toBe('raw_keys');
    const sw = a.swallowedAt(r!.node, 'NameError');
    expect(sw).toMatchObject({ kind: 'decorator', decorator: 'error_factory', verdict: 'False', line: 6, file: path.join(root, 'v/base/utils.py') });
    expect(a.qualifiedName(a.node({ type: 'identifier', startIndex: a.text.indexOf('error_factory(False)'), endIndex: a.text.indexOf('error_factory(False)') + 13 })!)).toBe('..base.utils.error_factory');
    py.dispose();
  });
});

describe('project: analyses within a memory budget', () => {
  const file = (root: string, rel: string, text: string): SourceFile => ({ path: path.join(root, rel), relPath: rel, language: 'python', source: new SourceText(text) });
  it('evicts the least recently used analyses over the budget and parses them again, with the same results', async () => {
    const root = '/virtual/budget';
    const files = Array.from({ length: 40 }, (_, i) => file(root, `m${i}.py`, `from m${(i + 1) % 40} import f${(i + 1) % 40}\n\ndef f${i}(x):\n    return f${(i + 1) % 40}(x) + missing_${i}\n`));
    const py = await createPythonProject(files, { maxCachedChars: 0 });
    const first = files.map((f) => py.analysis(f.path)!.unboundReads().map((r) => r.name));
    // 4 analyses stay cached whatever the budget (the file being visited and a few it calls into)
    expect(py.stats()).toEqual({ parsed: 40, evicted: 36, cached: 4 });
    const m0 = py.analysis(files[0]!.path)!;
    expect(py.stats().parsed).toBe(41);
    expect(py.analysis(files[0]!.path)).toBe(m0);
    expect(m0.unboundReads().map((r) => r.name)).toEqual(first[0]);
    expect(py.resolveFunction(files[5]!.path, 'f6')?.fn.qualname).toBe('f6');
    py.dispose();
    const unbounded = await createPythonProject(files);
    for (const f of files) unbounded.analysis(f.path);
    expect(unbounded.stats()).toEqual({ parsed: 40, evicted: 0, cached: 40 });
    unbounded.dispose();
  });
});

describe('project: modules over the budget, visited phase after phase', () => {
  const file = (root: string, rel: string, text: string): SourceFile => ({ path: path.join(root, rel), relPath: rel, language: 'python', source: new SourceText(text) });
  it('keeps the modules that fit the budget to the end and parses only the others again in each visit of every module', async () => {
    const root = '/virtual/scan';
    const files = Array.from({ length: 40 }, (_, i) => file(root, `m${i}.py`, `from m${(i + 1) % 40} import f${(i + 1) % 40}\n\ndef f${i}(x):\n    return f${(i + 1) % 40}(x) + missing_${i}\n`));
    const size = files[0]!.source.text.length;
    // room for about 20 of the 40 modules
    const py = await createPythonProject(files, { maxCachedChars: 20 * size });
    const unbounded = await createPythonProject(files);
    const reads = (p: typeof py, f: SourceFile) => p.analysis(f.path)!.unboundReads().map((r) => `${r.name}:${r.node.startIndex}`);
    // three phases, each visiting every module in order (binding, reach, the pass), each following one call
    for (let phase = 0; phase < 3; phase++) {
      for (const [i, f] of files.entries()) {
        expect(reads(py, f)).toEqual(reads(unbounded, f));
        expect(py.resolveFunction(f.path, `f${(i + 1) % 40}`)?.fn.qualname).toBe(`f${(i + 1) % 40}`);
      }
    }
    const kept = py.stats().cached - 16;
    // a least-recently-used cache missed on every visit of such a loop: 120 parses
    expect(py.stats().parsed).toBe(40 + 2 * (40 - kept));
    expect(kept).toBeGreaterThanOrEqual(19);
    py.dispose();
    unbounded.dispose();
  });
});

describe('large real modules', () => {
  // Speed is measured by bench/pyright-compare.mjs and bench/static-pass.mjs, never asserted here.
  it('analyses ≈8,000 lines of real Python and frees every tree', async () => {
    const stdlib = '/root/.pyenv/versions/3.11.7/lib/python3.11';
    let texts: string[];
    try {
      texts = ['argparse.py', 'subprocess.py', 'tarfile.py'].map((f) => readFileSync(path.join(stdlib, f), 'utf8'));
    } catch {
      texts = [readFileSync(path.resolve(import.meta.dirname, '../fixtures/demo-suite/verifier/chimerax/mixin.py'), 'utf8').repeat(150)];
    }
    let lines = 0;
    for (const t of texts) {
      const a = await analysePython(t);
      expect(Array.isArray(a.unboundReads())).toBe(true);
      lines += t.split('\n').length;
    }
    expect(lines).toBeGreaterThan(5000);
  });
});

describe('module globals read under the same guard as their binding', () => {
  it('does not report a global bound under `if X:` read by a function defined under `if X:`', async () => {
    const { analysePython } = await import('../src/lang/python/project.js');
    const a = await analysePython(`import platform
_win = platform.system() == "Windows"
if _win:
    import winreg
else:
    import pwd

class C:
    if _win:
        def home(self):
            return winreg.HKEY_CURRENT_USER
    else:
        def home(self):
            return pwd.getpwuid(0)

def anywhere():
    return pwd.getpwuid(0)
`);
    const reads = a.unboundReads().map((r) => `${r.name}:${a.line(r.node)}`);
    // the function defined outside the guard still reads a possibly-unbound global
    expect(reads).toEqual(['pwd:17']);
  });
});

describe('path correlation: two tests of one pure condition are one fact', () => {
  it('binds under the first test and reads under the second (platform aliases, hasattr, module constants)', async () => {
    const ok = [
      'import platform\ndef f(p):\n    name = platform.system()\n    if name == "Linux":\n        import a\n    elif name == "Windows":\n        import b\n    if name == "Windows":\n        return b.x\n    if name == "Linux":\n        return a.x\n',
      'def f(self):\n    if hasattr(self, "h"):\n        s = self.h.t\n        self.h.t = 1\n    self.go()\n    if hasattr(self, "h"):\n        self.h.t = s\n',
      'import sys\nDEBUG = False\ndef f():\n    if DEBUG:\n        t = 1\n    if DEBUG:\n        return t\n',
      'import os\ndef f():\n    if os.name == "nt":\n        return 0\n    else:\n        import pwd\n    if os.name != "nt":\n        return pwd.x\n',
    ];
    for (const code of ok) expect(await unbound(code), code).toEqual([]);
    // a write to the attribute between the tests ends the fact; a value excluded by the first test is unbound
    expect(await unbound('def f(self):\n    if hasattr(self, "h"):\n        s = 1\n        del self.h\n    if hasattr(self, "h"):\n        return s\n')).toEqual(['6:s:maybe']);
    expect(await unbound('import platform\ndef f():\n    n = platform.system()\n    if n == "Linux":\n        import a\n    if n == "Darwin":\n        return a.x\n')).toEqual(['7:a:unbound']);
  });
  it('runs loops over provably non-empty iterables at least once and knows the first pass', async () => {
    const ok = [
      'def f():\n    for _ in range(3):\n        r = 1\n    return r\n',
      'def f(c):\n    b = None\n    for i in range(9):\n        for k in range(b or 0, 1024):\n            b = k\n        if k == b:\n            break\n',
      'def f(xs):\n    for i, x in enumerate(xs):\n        if i == 0:\n            c = x\n        c.go()\n',
      'def f(xs):\n    if len(xs) > 0:\n        for x in xs:\n            y = x\n        return y\n',
    ];
    for (const code of ok) expect(await unbound(code), code).toEqual([]);
    expect(await unbound('def f(n):\n    for _ in range(n):\n        r = 1\n    return r\n')).toEqual(['4:r:maybe']);
    expect(await unbound('def f(xs):\n    for i, x in enumerate(xs):\n        if i > 0:\n            c = x\n        c.go()\n')).toEqual(['5:c:maybe']);
  });
  it('reports the platform conditions guarding a node', async () => {
    const a = await analysePython('import platform\nos_name = platform.system()\ndef f():\n    if os_name == "Linux":\n        return 1\n    elif os_name in ("Windows", "Darwin"):\n        return 2\n    return 3\n');
    const ret = (line: number) => findLine(a, line);
    expect(a.conditionGuards(ret(5)!)).toEqual([{ atom: 'platform.system()', platform: true, oneOf: ['Linux'] }]);
    expect(a.conditionGuards(ret(7)!)).toEqual([{ atom: 'platform.system()', platform: true, oneOf: ['Windows', 'Darwin'] }]);
    expect(a.conditionGuards(ret(8)!)).toEqual([]);
  });
});

function findLine(a: PythonAnalysis, line: number) {
  let hit: import('../src/lang/python/tree.js').PyNode | undefined;
  const visit = (n: import('../src/lang/python/tree.js').PyNode) => {
    if (!hit && n.type === 'return_statement' && a.line(n) === line) hit = n;
    n.children.forEach(visit);
  };
  visit(a.ast);
  return hit;
}

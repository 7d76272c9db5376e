import { describe, expect, it } from 'vitest';
import * as path from 'node:path';
import { SourceText } from '../src/core/source.js';
import type { SourceFile } from '../src/core/source.js';
import { loadSuites } from '../src/suites/index.js';
import { validateTask } from '../src/suites/schema.js';

const ROOT = '/proj';
function file(rel: string, text: string): SourceFile {
  return { path: path.join(ROOT, rel), relPath: rel, language: 'json', source: new SourceText(text) };
}

const CHIMERAX = `{
  "type": "ChimeraX", "sort": "VM", "steps": 5,
  "instruction": "Fetch 2OLX from PDB in ChimeraX.",
  "initialize": [ {"func": "launch", "command": ["chimerax", "--cmd", "remotecontrol rest start"], "wait": 7.5} ],
  "evaluate": [
    {"type": "states", "key": "_state_containers.models._models.(1,)._name", "value": "2olx"},
    {"type": "states", "key": "lambda key: '.'.join(key.split('.')[:-1] + ['_border'])",
     "find": "lambda key, value: key.endswith(')._name') and value == 'Color key'", "value": null},
    {"type": "info", "key": "lambda dump: dump['time']['scale']", "value": 0.05,
     "pred": "lambda key, value: abs(key - value) < 0.001"},
    {"type": "info", "key": "log", "value": "x", "pattern": "(?P<n>\\\\d+) atoms"},
    {"type": "stop", "value": "ANS", "args": ["109.03"]}
  ],
  "ans": "ANS 109.03"
}`;

describe('loadSuites (reference adapter)', () => {
  it('builds tasks, entries, initializers and embedded code', async () => {
    const { suites, problems } = await loadSuites([file('suite/tasks/ChimeraX/fetch.json', CHIMERAX)], { root: ROOT });
    expect(problems).toEqual([]);
    expect(suites).toHaveLength(1);
    const s = suites[0]!;
    expect(s.adapter).toBe('reference');
    expect(s.root).toBe('/proj/suite');
    const t = s.tasks[0]!;
    expect(t.id).toBe('fetch');
    expect(t.family).toBe('ChimeraX');
    expect(t.entries.map((e) => e.kind)).toEqual(['states', 'states', 'info', 'info', 'stop']);
    expect(t.initializers).toHaveLength(1);
    expect(t.entries[0]!.embedded).toEqual([]); // a dotted key is not code
    const e1 = t.entries[1]!;
    expect(e1.embedded.map((c) => [c.role, c.language, c.expectedArity])).toEqual([
      ['key', 'python', 1],
      ['find', 'python', 2],
    ]);
    const find = e1.embedded[1]!;
    const text = t.file.source.text;
    const i = find.code.indexOf("'Color key'");
    expect(text.slice(find.toFileOffset(i), find.toFileOffset(i + 11))).toBe("'Color key'");
    expect(find.ref.pointer).toBe('/evaluate/1/find');
    const rx = t.entries[3]!.embedded[0]!;
    expect([rx.language, rx.dialect, rx.code]).toEqual(['regex', 'python', '(?P<n>\\d+) atoms']);
    expect(text.slice(rx.toFileOffset(6), rx.toFileOffset(8))).toBe('\\\\d');
    expect(validateTask(t)).toEqual([]);
  });

  it('ignores non-task JSON silently and groups tasks by suite root', async () => {
    const files = [
      file('package.json', '{"name": "x", "type": "module"}'),
      file('tsconfig.json', '{"compilerOptions": {"strict": true}}'),
      file('vaudit.config.json', '{"rules": {"task-schema": "error"}}'),
      file('schemas/a.schema.json', '{"type": "object", "properties": {"evaluate": {"type": "array"}}}'),
      file('a/tasks/Lean/t1.json', '{"type": "Lean", "instruction": "x", "evaluate": [{"type": "placeholder"}]}'),
      file('b/tasks/Lean/t2.json', '{"type": "Lean", "instruction": "x", "evaluate": [{"type": "placeholder"}]}'),
      file('loose.json', '{"evaluate": [{"type": "info", "key": "k", "value": 1}]}'),
    ];
    const { suites, problems } = await loadSuites(files, { root: ROOT });
    expect(problems).toEqual([]);
    expect(suites.map((s) => [s.root, s.tasks.map((t) => t.id)])).toEqual([
      ['/proj', ['loose']],
      ['/proj/a', ['t1']],
      ['/proj/b', ['t2']],
    ]);
    expect(suites[0]!.tasks[0]!.family).toBe('unknown');
  });

  it('turns bad input into problems, never throws', async () => {
    const files = [
      file('tasks/Lean/broken.json', '{"type": "Lean", "instruction": "x",, }'),
      file('tasks/Lean/empty.json', ''),
      // an array in a tasks folder is no problem of its own: arrays are task containers, and a file no
      // harness loads as tasks is not a task (never decided from its folder's name)
      file('tasks/Lean/array.json', '[1, 2]'),
      file('other/number.json', '42'),
      file('tasks/Lean/ctrl.json', '{"type": "Lean", "instruction": "a\tb", "evaluate": []}'),
    ];
    const { suites, problems } = await loadSuites(files, { root: ROOT });
    expect(suites).toEqual([]);
    expect(problems.map((p) => [path.basename(p.file), p.start])).toEqual([
      ['broken.json', 36],
      ['empty.json', 0],
      ['ctrl.json', 34],
    ]);
    for (const p of problems) expect(p.message).toMatch(/^[A-Z].*\.$/);
  });

  it('reports an unknown forced adapter as a problem', async () => {
    const r = await loadSuites([], { root: ROOT, adapter: 'nope' });
    expect(r.problems[0]!.message).toMatch(/Unknown suite adapter "nope"/);
  });
});

describe('validateTask', () => {
  async function task(text: string, family = 'ChimeraX') {
    const { suites, problems } = await loadSuites([file(`tasks/${family}/t.json`, text)], { root: ROOT });
    expect(problems).toEqual([]);
    return suites[0]!.tasks[0]!;
  }

  it('reports one problem per real defect at exact pointers', async () => {
    const text = `{"type": "ChimeraX", "instruction": "i", "evaluate": [
      {"type": "states", "value": 1},
      {"type": "sates", "key": "k", "value": 1},
      {"type": "stop", "value": "ANS"},
      {"type": "info", "key": 3, "value": 1},
      {"type": "states", "key": "k", "value": 1, "fnid": "lambda k, v: k == v"}
    ], "initialize": [{"func": "touch", "path": "/a"}]}`;
    const t = await task(text);
    const ps = validateTask(t);
    expect(ps.map((p) => [p.kind, p.pointer, (p.data.field ?? p.data.kind) as string])).toEqual([
      ['missingField', '/evaluate/0', 'key'],
      ['unknownKind', '/evaluate/1/type', 'sates'],
      ['missingField', '/evaluate/2', 'args'],
      ['wrongType', '/evaluate/3/key', 'key'],
      ['unknownField', '/evaluate/4/fnid', 'fnid'],
      ['missingField', '/initialize/0', 'text'],
    ]);
    const kind = ps[1]!;
    expect(text.slice(kind.start, kind.end)).toBe('"sates"');
    const typo = ps[4]!;
    expect(text.slice(typo.start, typo.end)).toBe('"fnid"');
    expect(typo.data.guess).toBe('find');
  });

  it('flags an unknown family and duplicate members', async () => {
    const text = '{"type": "Blender", "instruction": "i", "evaluate": [{"type": "info", "value": 1, "value": 2}]}';
    const t = await task(text, 'Blender');
    const ps = validateTask(t);
    expect(ps.map((p) => p.kind)).toEqual(['unknownFamily', 'duplicateMember']);
    expect(text.slice(ps[1]!.start, ps[1]!.end)).toBe('"value": 1');
  });

  it('accepts comment members anywhere', async () => {
    const t = await task('{"//": "note", "type": "Lean", "instruction": "i", "evaluate": [{"type": "placeholder", "//vaudit-expect": "x"}]}', 'Lean');
    expect(validateTask(t)).toEqual([]);
  });
});

describe('loadSuites on hostile input', () => {
  it('survives a 10 MB task, a deeply nested document and binary-looking text', async () => {
    const big = JSON.stringify({ type: 'TeXstudio', instruction: 'x'.repeat(5_000_000), evaluate: Array.from({ length: 20000 }, (_, i) => ({ type: 'compile', path: `/p/${i}.tex` })) });
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const files = [
      file('tasks/TeXstudio/big.json', big),
      file('tasks/Lean/deep.json', deep),
      file('tasks/Lean/binary.json', '\u0000\u0001\u0002PNG\r\n'),
    ];
    const { suites, problems } = await loadSuites(files, { root: ROOT });
    expect(suites[0]!.tasks[0]!.entries).toHaveLength(20000);
    expect(problems.map((p) => path.basename(p.file))).toEqual(['deep.json', 'binary.json']);
  });
});

describe('embedded code discovery', () => {
  it('finds code in nested option objects but never inside expected data', async () => {
    const text = JSON.stringify({
      type: 'ChimeraX', instruction: 'x',
      evaluate: [{ type: 'info', key: 'log', value: { find: 'not code', key: 'lambda x: x' }, args: [{ pred: 'p' }], options: { pred: 'lambda key, value: key == value', pattern: '\\d+' } }],
    });
    const { suites } = await loadSuites([file('tasks/ChimeraX/n.json', text)], { root: ROOT });
    const codes = suites[0]!.tasks[0]!.entries[0]!.embedded;
    expect(codes.map((c) => [c.ref.pointer, c.language])).toEqual([
      ['/evaluate/0/options/pred', 'python'],
      ['/evaluate/0/options/pattern', 'regex'],
    ]);
  });
});

/**
 * Python ends a line at LF, CRLF or a lone CR (universal newlines); tree-sitter's Python grammar knows
 * only the first two, so a file saved with lone CRs parsed as one broken line (ERROR nodes, a false
 * `parse-error` on code CPython runs). The parser, the threads that parse ahead, the incremental
 * re-parse of the editor and the slicer of control cases now read lone CRs as LF (same length, same
 * offsets), and every line number agrees with `SourceText`, which the findings use.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loneCrAsLf, SourceText } from '../src/core/source.js';
import { pythonParser } from '../src/lang/python/parser.js';
import { createPythonProject } from '../src/lang/python/project.js';
import { functionInfo } from '../src/confirm/slice-python.js';
import { dumpTree } from './helpers/tree-dump.js';
import { runCli } from './helpers/run-cli.js';

const LF = 'import subprocess\n\ndef check(path):\n    if path:\n        out = subprocess.run(["cat", path], capture_output=True)\n        return out.returncode == 0\n    return False\n';
const CR = LF.replaceAll('\n', '\r');
const MIXED = LF.replace('\n\n', '\r\n\r\n').replace('path):\n', 'path):\r');

const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-newlines-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('lone CR line ends', () => {
  it('loneCrAsLf keeps length and CRLF, and turns only lone CRs into LF', () => {
    expect(loneCrAsLf('a\rb\r\nc\n\r')).toBe('a\nb\r\nc\n\n');
    expect(loneCrAsLf(CR)).toHaveLength(CR.length);
    const plain = 'x = 1\n';
    expect(loneCrAsLf(plain)).toBe(plain);
  });

  it('parses as the same tree as the LF text (no ERROR node), for the plain and the incremental parser', async () => {
    const p = await pythonParser();
    const lf = dumpTree(p.parse(LF));
    expect(lf).not.toMatch(/E\b| ERROR /);
    expect(dumpTree(p.parse(CR))).toBe(lf);
    expect(dumpTree(p.parse(MIXED))).not.toMatch(/ ERROR /);
    // an editor edit in a lone-CR file: from the kept tree, the same tree as a fresh parse
    const first = p.parseKeeping!(CR);
    const edited = CR.replace('path:', 'path and 1:');
    const next = p.parseKeeping!(edited, first.kept);
    expect(dumpTree(next.root)).toBe(dumpTree(p.parse(edited.replaceAll('\r', '\n'))));
  });

  it('lines of the analysis and of the slicer are the lines SourceText gives the findings', async () => {
    for (const text of [CR, MIXED, LF]) {
      const file = path.join(tmp, 'm.py');
      const project = await createPythonProject([{ path: file, relPath: 'm.py', language: 'python', source: new SourceText(text) }]);
      const a = project.analysis(file)!;
      const st = new SourceText(text);
      const fn = a.functions().find((f) => f.qualname === 'check')!;
      expect(a.line(fn.node)).toBe(st.positionAt(fn.node.start).line);
      const info = await functionInfo(text, { qualname: 'check' });
      expect(info).toMatchObject({ startLine: st.positionAt(fn.node.start).line, endLine: st.positionAt(fn.node.end - 1).line });
      project.dispose();
    }
  });

  it('vaudit check: a lone-CR verifier gets its real findings on the right lines, and no parse-error', () => {
    const dir = path.join(tmp, 'suite');
    mkdirSync(path.join(dir, 'verifier'), { recursive: true });
    writeFileSync(path.join(dir, 'verifier', 'lone_cr.py'), CR);
    writeFileSync(path.join(dir, 'verifier', 'lf.py'), LF);
    const r = runCli(['check', '.', '--scope', 'all', '--format', 'json'], { cwd: dir });
    const findings = (JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; file: string; range: { start: { line: number } } }> }).findings;
    const of = (f: string) => findings.filter((x) => x.file.endsWith(f)).map((x) => `${x.ruleId}:${x.range.start.line}`).sort();
    expect(of('lone_cr.py')).not.toContainEqual(expect.stringMatching(/^parse-error/));
    expect(of('lone_cr.py')).toContain('missing-timeout:5');
    expect(of('lone_cr.py')).toEqual(of('lf.py'));
  });
});

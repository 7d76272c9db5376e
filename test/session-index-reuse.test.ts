/**
 * An editor session keeps its suite indexes over a Python edit that leaves the
 * module's cross-file summary unchanged (src/engine/index-reuse.ts), on the real
 * corpora: after a body edit to a verifier module the entries route to (a
 * comment line at the start of a function body, which moves every later
 * function), and after a rename of the function an entry routes to, the
 * session's findings on every Python and task file equal those of a fresh
 * session over the same buffers (the verifier paths too: the session keeps
 * per-file facts of their walk, src/engine/reach.ts). ScienceBoard (reference format) and Spider2-V
 * (OSWorld family: its binder learns the dispatch from method bodies, `bindKey`) keep the indexes over
 * the body edit.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LintSession } from '../src/engine/session.js';
import type { Finding } from '../src/core/types.js';
import { learnKindRoutes } from '../src/suites/harness/learn.js';
import { harnessProgram } from '../src/engine/pass.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');

const key = (f: Finding) => `${f.ruleId} ${f.file} ${f.range.start.offset}-${f.range.end.offset} ${f.pointer ?? ''} ${f.message} ${JSON.stringify(f.related ?? [])}`;

async function fresh(root: string, file: string, text: string, targets: string[]): Promise<string[]> {
  const s = await LintSession.create({ root });
  try {
    s.setDocument(file, text);
    return (await s.lint(targets)).findings.map(key).sort();
  } finally {
    await s.dispose();
  }
}

describe.each([
  { corpus: 'scienceboard', keeps: true },
  { corpus: 'spider2v', keeps: true },
])('suite indexes over Python edits on $corpus', ({ corpus, keeps }) => {
  const root = path.join(corpora, corpus);
  it.skipIf(!existsSync(root))(`body edits ${keeps ? 'keep' : 'rebuild'} them, renames rebuild them; findings equal a fresh session`, async () => {
    const s = await LintSession.create({ root });
    try {
      await s.lint([]);
      const targets = [...s.project!.files.keys()].filter((p) => /\.(py|json)$/.test(p)).sort();
      const bound = [...new Set(s.project!.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [e.binding] : [])))))];
      // an edit above a kind dispatch the harness holds moves its line, which findings show: the session
      // rebuilds then (the last test); the modules edited here hold none
      const sorted = [...s.project!.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
      const sites = new Set(learnKindRoutes({ python: s.project!.python, files: sorted, programOf: harnessProgram }).map((r) => r.file));
      const modules = [...new Set(bound.map((b) => b.file))].filter((f) => !sites.has(f)).sort().slice(0, 2);
      expect(modules.length).toBeGreaterThan(0);
      for (const file of modules) {
        let text = s.file(file)!.source.text;
        await s.lint(targets);

        // a comment line at the start of the body of a function in the middle of the module
        const fns = s.pythonAnalysis(file)!.functions().filter((f) => f.node.childForFieldName('body') && !f.qualname.includes('<locals>'));
        const fn = fns[Math.floor(fns.length / 2)]!;
        const body = fn.node.childForFieldName('body')!;
        const lineStart = text.lastIndexOf('\n', body.start - 1) + 1;
        text = `${text.slice(0, lineStart)}${text.slice(lineStart, body.start)}# edited\n${text.slice(lineStart)}`;
        s.setDocument(file, text);
        let before = s.stats();
        let got = (await s.lint(targets)).findings.map(key).sort();
        let after = s.stats();
        expect({ builds: after.indexBuilds - before.indexBuilds, reuses: after.indexReuses - before.indexReuses }, `${file}: body edit in ${fn.qualname}`)
          .toEqual(keeps ? { builds: 0, reuses: 1 } : { builds: 1, reuses: 0 });
        expect(got, `${file}: body edit in ${fn.qualname}`).toEqual(await fresh(root, file, text, targets));

        // rename a function an entry routes to: the entries bound to it are unbound
        const routed = bound.find((b) => b.file === file)!;
        const name = routed.qualname.split('.').pop()!;
        const at = text.indexOf(`def ${name}(`);
        expect(at).toBeGreaterThanOrEqual(0);
        text = `${text.slice(0, at)}def ${name}_renamed(${text.slice(at + `def ${name}(`.length)}`;
        s.setDocument(file, text);
        before = s.stats();
        got = (await s.lint(targets)).findings.map(key).sort();
        after = s.stats();
        expect({ builds: after.indexBuilds - before.indexBuilds, reuses: after.indexReuses - before.indexReuses }, `${file}: rename ${name}`).toEqual({ builds: 1, reuses: 0 });
        expect(got, `${file}: rename ${name}`).toEqual(await fresh(root, file, text, targets));
        s.setDocument(file, undefined);
      }
    } finally {
      await s.dispose();
    }
  }, 300_000);
});

/**
 * What the suites' loading learns from Python bodies (the harness's kind dispatches and module routes):
 * an edit inside a function body that adds a dispatch leaves every module's summary as it was, yet makes
 * task records of the JSON files the dispatch reads. The session must see them as a fresh run does.
 */
describe('suite indexes over an edit of the harness', () => {
  it('a dispatch added inside a function body: the session rebuilds and reports what a fresh session reports', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vaudit-harness-edit-'));
    try {
      cpSync(path.join(repoRoot, 'fixtures/demo-suite'), root, { recursive: true });
      mkdirSync(path.join(root, 'grading'));
      mkdirSync(path.join(root, 'config_files'));
      writeFileSync(path.join(root, 'grading/__init__.py'), '');
      writeFileSync(path.join(root, 'grading/checks.py'), [
        'class StringCheck:',
        '    def __call__(self, answer, config):',
        '        return float(answer == config["eval"]["reference"])',
        '',
        'class UrlCheck:',
        '    def __call__(self, answer, config):',
        '        return float(config["eval"]["url"] in answer)',
        '',
      ].join('\n'));
      const before = [
        'import json',
        'from grading.checks import StringCheck, UrlCheck',
        '',
        'def evaluator_router(config_file):',
        '    with open(config_file) as f:',
        '        configs = json.load(f)',
        '    evaluators = []',
        '    for eval_type in configs["eval"]["eval_types"]:',
        '        evaluators.append(eval_type)',
        '    return evaluators',
        '',
      ].join('\n');
      const after = before.replace('        evaluators.append(eval_type)\n', [
        '        match eval_type:',
        '            case "string_match":',
        '                evaluators.append(StringCheck())',
        '            case "url_match":',
        '                evaluators.append(UrlCheck())',
        '            case _:',
        '                raise ValueError(eval_type)',
        '',
      ].join('\n'));
      const router = path.join(root, 'grading/router.py');
      writeFileSync(router, before);
      for (const [n, types] of [[1, ['string_match']], [2, ['url_match']], [3, ['string_match', 'program_html']]] as const) {
        writeFileSync(path.join(root, `config_files/${n}.json`), JSON.stringify({ task_id: n, eval: { eval_types: types, reference: 'x', url: 'http://a' } }, null, 2));
      }
      const s = await LintSession.create({ root });
      try {
        await s.lint([]);
        const targets = [...s.project!.files.keys()].filter((p) => /\.(py|json)$/.test(p)).sort();
        const first = (await s.lint(targets)).findings.map(key);
        expect(first.filter((k) => k.startsWith('evaluator-dispatch') && k.includes('config_files'))).toEqual([]);
        s.setDocument(router, after);
        const b = s.stats();
        const got = (await s.lint(targets)).findings.map(key).sort();
        const a = s.stats();
        expect({ builds: a.indexBuilds - b.indexBuilds, reuses: a.indexReuses - b.indexReuses }).toEqual({ builds: 1, reuses: 0 });
        expect(got.filter((k) => k.startsWith('evaluator-dispatch') && k.includes(`config_files${path.sep}3.json`))).toHaveLength(1);
        expect(got).toEqual(await fresh(root, router, after, targets));
        // and back: the dispatch gone, the records are no tasks again
        s.setDocument(router, before);
        expect((await s.lint(targets)).findings.map(key).sort()).toEqual(await fresh(root, router, before, targets));
      } finally {
        await s.dispose();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(!existsSync(path.join(corpora, 'spider2v')))('suite indexes over an edit of the OSWorld dispatcher (Spider2-V)', () => {
  it('the set-up method name template changed inside a method body: the session binds again, as a fresh session does', async () => {
    const root = path.join(corpora, 'spider2v');
    const file = path.join(root, 'desktop_env/controllers/setup.py');
    const s = await LintSession.create({ root });
    try {
      await s.lint([]);
      const targets = [...s.project!.files.keys()].filter((p) => /\.json$/.test(p)).sort().slice(0, 40);
      const first = (await s.lint(targets)).findings.map(key);
      const text = s.file(file)!.source.text;
      expect(text).toContain('"_{:}_setup".format(');
      const counts = async (t: string) => {
        s.setDocument(file, t);
        const b = s.stats();
        const found = (await s.lint(targets)).findings.map(key).sort();
        const a = s.stats();
        return { found, counts: { builds: a.indexBuilds - b.indexBuilds, reuses: a.indexReuses - b.indexReuses } };
      };
      // a comment in the method: the bindings are kept
      const commented = text.replace('"_{:}_setup".format(', '"_{:}_setup".format( # edited\n');
      expect((await counts(commented)).counts).toEqual({ builds: 0, reuses: 1 });
      const edited = commented.replace('"_{:}_setup".format(', '"_{:}_setupX".format(');
      const { found: got, counts: c } = await counts(edited);
      expect(c).toEqual({ builds: 1, reuses: 0 });
      // the steps are bound to no method now
      expect(got.filter((k) => k.includes('_setupX')).length).toBeGreaterThan(first.filter((k) => k.includes('_setupX')).length);
      expect(got).toEqual(await fresh(root, file, edited, targets));
    } finally {
      await s.dispose();
    }
  }, 300_000);
});

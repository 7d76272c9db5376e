/**
 * The OSWorld-family adapter and its task-layer rule (evaluator-dispatch) on the real Spider2-V
 * suite, read in place, and on mutated copies of its task files.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { SourceText } from '../src/core/source.js';
import type { SourceFile } from '../src/core/source.js';
import { loadSuites } from '../src/suites/index.js';
import { runCli } from './helpers/run-cli.js';

const REPO = path.resolve(import.meta.dirname, '..');
const CORPUS = path.resolve(REPO, '../shared/corpora/spider2v');
const HAVE = existsSync(path.join(CORPUS, 'evaluation_examples'));
if (!HAVE) console.warn(`Spider2-V corpus not found at ${CORPUS}: its tests are skipped.`);

type Json = Record<string, any>;

function file(rel: string, text: string): SourceFile {
  return { path: path.join('/proj', rel), relPath: rel, language: 'json', source: new SourceText(text) };
}

describe('osworld adapter (detection and entries)', () => {
  it('one entry per metric; list entries take the i-th result/expected/options', async () => {
    const task = JSON.stringify({
      id: 't1',
      config: [{ type: 'sleep', parameters: { seconds: 1 } }],
      evaluator: {
        postconfig: [{ type: 'sleep', parameters: { seconds: 2 } }],
        func: ['compare_csv', 'check_file_existence'],
        result: [{ type: 'vm_file', path: 'a' }, { type: 'vm_file', path: 'b' }],
        expected: [{ type: 'local_file', path: 'g' }, {}],
        options: [{ strict: true }, {}],
        conj: 'or',
      },
    });
    const { suites, problems } = await loadSuites(
      [
        file('bench/evaluation_examples/examples/calc/t1/t1.json', task),
        file('bench/evaluation_examples/test_all.json', '{"calc": ["t1"]}'),
        file('bench/evaluation_examples/examples/template.json', JSON.stringify({ id: 'x', evaluator: { func: 'metric_function_name', result: { type: 'method' } } })),
      ],
      { root: '/proj' },
    );
    expect(problems).toEqual([]);
    expect(suites.map((s) => [s.adapter, s.root, s.tasks.length])).toEqual([['osworld', '/proj/bench', 1]]);
    const t = suites[0]!.tasks[0]!;
    expect([t.id, t.family, t.initializers.map((r) => r.pointer)]).toEqual(['t1', 'calc', ['/config/0', '/evaluator/postconfig/0']]);
    expect(t.entries.map((e) => [e.kind, e.pointer, e.fields.result?.pointer, e.fields.expected?.pointer, e.fields.options?.pointer, e.fields.conj?.value])).toEqual([
      ['compare_csv', '/evaluator/func/0', '/evaluator/result/0', '/evaluator/expected/0', '/evaluator/options/0', 'or'],
      ['check_file_existence', '/evaluator/func/1', '/evaluator/result/1', '/evaluator/expected/1', '/evaluator/options/1', 'or'],
    ]);
    expect(t.entries[0]!.routes!.map((r) => [r.role, r.name, r.target])).toEqual([
      ['metric', 'compare_csv', 'compare_csv'],
      ['result', 'vm_file', 'get_vm_file'],
      ['expected', 'local_file', 'get_local_file'],
    ]);
    // an empty expected item is "no expected state": no getter route
    expect(t.entries[1]!.routes!.map((r) => r.role)).toEqual(['metric', 'result']);
  });

  it('an evaluator that is not an object is still a task (and is reported)', async () => {
    const { suites } = await loadSuites([file('s/evaluation_examples/examples/calc/t.json', '{"instruction": "x", "config": [], "evaluator": "compare_csv"}')], { root: '/proj' });
    expect(suites[0]?.tasks[0]?.entries).toEqual([]);
  });
});

describe.skipIf(!HAVE)('osworld adapter on the real Spider2-V', () => {
  it('recognises the 494 tasks and binds every metric and getter they route to', async () => {
    const r = await lint({ cwd: CORPUS, paths: ['.'] });
    try {
      const suites = r.project.suites;
      expect(suites.map((s) => [s.adapter, path.relative(CORPUS, s.root)])).toEqual([['osworld', '']]);
      const tasks = suites[0]!.tasks;
      expect(tasks).toHaveLength(494);
      expect(tasks.some((t) => /test_all|template/.test(t.file.relPath))).toBe(false);
      const entries = tasks.flatMap((t) => t.entries);
      expect(entries).toHaveLength(546);
      const unbound = entries.flatMap((e) => (e.routes ?? []).filter((x) => !x.binding).map((x) => `${x.role}:${x.target}`));
      expect(unbound).toEqual([]);
      // the metric is the entry's binding (what reachability starts from)
      expect(entries.every((e) => e.binding && e.binding.file.includes(`${path.sep}metrics${path.sep}`))).toBe(true);
      const getters = new Set(entries.flatMap((e) => (e.routes ?? []).filter((x) => x.role !== 'metric').map((x) => path.basename(x.binding!.file))));
      expect(getters.has('file.py') && getters.has('misc.py')).toBe(true);
      // every config/postconfig step is bound to the set-up method or the configs function it runs
      const steps = tasks.flatMap((t) => t.initializerRoutes ?? []);
      expect(steps.length).toBe(tasks.reduce((n, t) => n + t.initializers.length, 0));
      expect(steps.filter((x) => !x.binding).map((x) => x.target)).toEqual([]);
      expect(new Set(steps.map((x) => path.basename(x.binding!.file)))).toEqual(new Set(['setup.py', 'general.py', 'bigquery.py', 'dbt.py', 'dagster.py', 'airbyte.py', 'astro.py', 'snowflake.py', 'metabase.py', 'superset.py', 'googledrive.py', 'servicenow.py']));
      // the evaluators are routable: the task-layer rule reports only the dbt steps' "setting_file",
      // a typo of the "settings_file" their set-up functions read (ignored; the default path is used),
      // and the two bigquery tasks whose rules.exclude is a list tested as one element of a list of names
      const dispatch = r.findings.filter((f) => f.ruleId === 'evaluator-dispatch');
      expect(new Set(dispatch.map((f) => `${f.messageId} ${f.pointer?.replace(/\d+/, 'N')}`))).toEqual(new Set(['unreadStepParam /config/N/parameters/setting_file', 'memberKind /evaluator/expected/rules/exclude']));
      expect(dispatch).toHaveLength(40);
    } finally {
      r.dispose();
    }
  });
});

describe.skipIf(!HAVE)('evaluator-dispatch on mutated copies of real Spider2-V tasks', () => {
  const dir = HAVE ? mkdtempSync(path.join(os.tmpdir(), 'vaudit-osworld-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Copy the package and the first task of `app` whose evaluator passes `pick`, mutate it, return its path. */
  function mutated(name: string, pick: (ev: Record<string, unknown>, task: Json) => boolean, mutate: (ev: Record<string, unknown>, task: Json) => void): string {
    const examples = path.join(CORPUS, 'evaluation_examples/examples');
    for (const app of readdirSync(examples).sort()) {
      const appDir = path.join(examples, app);
      if (!statSync(appDir).isDirectory() || !readdirSync(appDir, { withFileTypes: true }).some((d) => d.isDirectory())) continue;
      for (const id of readdirSync(appDir).sort()) {
        const src = path.join(appDir, id, `${id}.json`);
        if (!existsSync(src)) continue;
        const task = JSON.parse(readFileSync(src, 'utf8')) as Json;
        if (!pick(task.evaluator, task)) continue;
        mutate(task.evaluator, task);
        const out = path.join(dir, 'evaluation_examples/examples', app, name, `${name}.json`);
        mkdirSync(path.dirname(out), { recursive: true });
        writeFileSync(out, JSON.stringify(task, null, 2));
        return out;
      }
    }
    throw new Error(`no task fits ${name}`);
  }

  const single = (ev: Record<string, unknown>) => typeof ev.func === 'string' && ev.func !== 'infeasible';
  const list = (ev: Record<string, unknown>) => Array.isArray(ev.func) && ev.func.length === 2;
  /** Index of the first step of `type` in a step list, else -1. */
  const stepOf = (steps: unknown, type: string) => (Array.isArray(steps) ? steps.findIndex((s: Json) => s?.type === type) : -1);
  const configAt = (t: Json, type: string) => t.config[stepOf(t.config, type)];
  const postAt = (ev: Json, type: string) => ev.postconfig[stepOf(ev.postconfig, type)];
  const cases: Array<[string, (ev: Json, task: Json) => boolean, (ev: Json, task: Json) => void, string, string]> = [
    ['empty-func', single, (ev) => (ev.func = ''), 'emptyFunc', '/evaluator/func'],
    ['unknown-func', single, (ev) => (ev.func = 'compare_tables'), 'unknownFunc', '/evaluator/func'],
    ['unknown-getter', single, (ev) => ((ev.result as Record<string, unknown>).type = 'vm_files'), 'unknownGetter', '/evaluator/result/type'],
    ['bad-option', (ev) => ev.func === 'compare_csv' && !ev.options, (ev) => (ev.options = { ignore_ordering: true }), 'unreadOption', '/evaluator/options/ignore_ordering'],
    ['bad-option-no-kwargs', (ev) => ev.func === 'check_include_exclude', (ev) => (ev.options = { strict: true }), 'unexpectedOption', '/evaluator/options/strict'],
    ['list-lengths', list, (ev) => (ev.expected as unknown[]).pop(), 'listShape', '/evaluator/expected'],
    // a getter whose value the metric cannot use: exact_match reads rules["expected"], get_local_file returns a path
    ['state-kind', (ev) => ev.func === 'exact_match' && (ev.expected as Json)?.type === 'rule', (ev) => (ev.expected = { type: 'local_file', path: 'evaluation_examples/gold/answer.txt' }), 'stateKind', '/evaluator/expected/type'],
    // config / postconfig steps, as SetupController.setup runs them
    ['unknown-step', (_ev, t) => stepOf(t.config, 'launch') >= 0, (_ev, t) => (configAt(t, 'launch').type = 'launch_app'), 'unknownStep', '/config/N/type'],
    ['unknown-postconfig', (ev) => stepOf(ev.postconfig, 'sleep') >= 0, (ev) => (postAt(ev, 'sleep').type = 'wait'), 'unknownStep', '/evaluator/postconfig/N/type'],
    ['step-bad-param', (ev) => stepOf(ev.postconfig, 'sleep') >= 0, (ev) => (postAt(ev, 'sleep').parameters = { seconds: 2, jitter: 1 }), 'unexpectedStepParam', '/evaluator/postconfig/N/parameters/jitter'],
    ['step-missing-param', (ev) => stepOf(ev.postconfig, 'activate_window') >= 0, (ev) => delete postAt(ev, 'activate_window').parameters.window_name, 'missingStepParam', '/evaluator/postconfig/N/parameters'],
    ['step-no-parameters', (_ev, t) => stepOf(t.config, 'open') >= 0, (_ev, t) => delete configAt(t, 'open').parameters, 'stepShape', '/config/N'],
    ['step-bad-fallback-param', (_ev, t) => stepOf(t.config, 'script_and_execute') >= 0, (_ev, t) => (configAt(t, 'script_and_execute').parameters.destination = '/tmp/x'), 'unexpectedStepParam', '/config/N/parameters/destination'],
    ['step-unread-param', (_ev, t) => stepOf(t.config, 'google_chrome_browser') >= 0, (_ev, t) => (configAt(t, 'google_chrome_browser').parameters.fullscreen = true), 'unreadStepParam', '/config/N/parameters/fullscreen'],
  ];

  it('reports each mutation at its pointer, and nothing on the untouched package', async () => {
    if (!dir) return;
    cpSync(path.join(CORPUS, 'desktop_env'), path.join(dir, 'desktop_env'), { recursive: true, filter: (s) => !s.includes(`${path.sep}assets`) });
    const files = new Map(cases.map(([name, pick, mutate]) => [name, mutated(name, pick, mutate)]));
    const r = await lint({ cwd: dir, paths: ['.'] });
    try {
      // the dbt tasks' "setting_file" typo (reviewed on the corpus) is not what these cases are about
      const got = r.findings.filter((f) => f.ruleId === 'evaluator-dispatch' && !f.pointer?.endsWith('/setting_file'));
      for (const [name, , , messageId, pointer] of cases) {
        const mine = got.filter((f) => f.file === files.get(name));
        const step = (p?: string) => p?.replace(/(config\/)\d+/, '$1N');
        expect(mine.map((f) => [f.messageId, step(f.pointer)]), name).toEqual([[messageId, step(pointer)]]);
      }
      expect(got).toHaveLength(cases.length);
    } finally {
      r.dispose();
    }
  });

  it('the CLI reports them (real process)', () => {
    if (!dir) return;
    const out = runCli(['check', '.', '--format', 'json'], { cwd: dir });
    const findings = (JSON.parse(out.stdout) as { findings: Array<{ ruleId: string; pointer?: string }> }).findings.filter((f) => f.ruleId === 'evaluator-dispatch' && !f.pointer?.endsWith('/setting_file'));
    expect(findings).toHaveLength(cases.length);
    expect(out.code).toBe(1);
  });
});

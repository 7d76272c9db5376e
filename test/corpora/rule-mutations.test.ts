/**
 * Every rule with findings in the androidworld, Spider2-V, stagehand and webarena-infinity gates,
 * on real code (issue #27, item 5; ScienceBoard's task rules are in mutations.test.ts, the defects
 * the rules missed in missed-mutations.test.ts). A real verifier file is copied to a temp folder
 * (with only what the rule needs beside it) and either checked as shipped, when it holds the
 * defect, or first broken the rule's way; the rule must report the site. Then it is fixed the way
 * its maintainers would (lines keep their numbers) and the rule must fall silent there.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { at, check, copyOfSuite, ROOT } from './mutation-kit.js';


interface Case {
  name: string;
  suite: string;
  /** Paths copied from the suite (files or folders). */
  copy: string[];
  /** The file the finding is in. */
  file: string;
  rule: string;
  /** The rules run (`--rule`), when not `rule` itself (parse-error is reported whatever is selected). */
  select?: string;
  /** Text the message must contain. */
  message: string;
  /** Line (code) or JSON pointer (task files) of the finding. */
  line?: number;
  pointer?: string;
  /** Break a clean real file the rule's way (absent: the file holds the defect as shipped). */
  mutate?(text: string): string;
  /** Fix it (from the shipped or broken text); the site must then be silent. */
  fix(text: string): string;
  /** Files the fix adds beside it (path in the copy → text). */
  adds?: Record<string, string>;
}

/** Replace exactly one occurrence (the test fails loudly when the real file changed). */
const once = (t: string, from: string | RegExp, to: string) => {
  const n = typeof from === 'string' ? t.split(from).length - 1 : (t.match(new RegExp(from.source, `${from.flags.replace('g', '')}g`)) ?? []).length;
  if (n !== 1) throw new Error(`expected one ${String(from)}, found ${n}`);
  return t.replace(from, to);
};

const CASES: Case[] = [
  // Spider2-V
  {
    name: 'Spider2-V get_vm_script_output: requests.post to the VM server with no timeout',
    suite: 'spider2v',
    copy: ['desktop_env/evaluators/getters/general.py'],
    file: 'desktop_env/evaluators/getters/general.py',
    rule: 'missing-timeout',
    message: 'has no timeout',
    line: 37,
    fix: (t) => once(t, 'json={"command": script, "shell": shell})', 'json={"command": script, "shell": shell}, timeout=600)'),
  },
  {
    name: 'Spider2-V get_vm_script_output: response.json() before the status is checked',
    suite: 'spider2v',
    copy: ['desktop_env/evaluators/getters/general.py'],
    file: 'desktop_env/evaluators/getters/general.py',
    rule: 'unguarded-state-read',
    message: 'parses application state',
    line: 39,
    // print the status (not the body) and parse only a 200 reply, inside a handler
    fix: (t) =>
      once(
        t,
        /script, "shell": shell}\)\n\n {4}print\(response\.json\(\)\)\n\n {4}if response\.status_code == 200:\n {8}return response\.json\(\)\["output"\]\n/,
        'script, "shell": shell})\n\n    print(response.status_code)\n    if response.status_code == 200:\n        try: return response.json()["output"]\n        except ValueError: return None\n',
      ),
  },
  {
    name: 'Spider2-V check_include_exclude: include tokens as substrings of the getter text (task d9310e1b)',
    suite: 'spider2v',
    copy: ['desktop_env', 'evaluation_examples/examples/dbt/d9310e1b-881d-41a6-9845-fbc5c81e491c/d9310e1b-881d-41a6-9845-fbc5c81e491c.json'],
    file: 'desktop_env/evaluators/metrics/general.py',
    rule: 'substring-verdict',
    message: 'passes the check when the text contains',
    line: 35,
    fix: (t) => once(t, 'if all(r in result for r in include) and all(r not in result for r in exclude):', 'if all(r in result.split() for r in include) and all(r not in result.split() for r in exclude):'),
  },
  {
    name: 'Spider2-V check_yaml_file: except Exception returns the failing verdict',
    suite: 'spider2v',
    copy: ['desktop_env/evaluators/metrics/dbt.py'],
    file: 'desktop_env/evaluators/metrics/dbt.py',
    rule: 'swallowed-error-verdict',
    message: 'turns every exception into the verdict',
    line: 60,
    // only an unreadable YAML file (the agent's output) fails the task; verifier bugs surface
    fix: (t) => once(t, / {4}except Exception as e:\n {8}logger\.info\('Unexpected error occurred when checking yaml file', e\)\n {8}return 0/, "    except (OSError, yaml.YAMLError) as e:\n        logger.info('Unexpected error occurred when checking yaml file', e)\n        return 0"),
  },
  {
    name: 'Spider2-V compare_table: sheet_fuzzy metric bound only for the known rule types',
    suite: 'spider2v',
    copy: ['desktop_env/evaluators/metrics/table.py'],
    file: 'desktop_env/evaluators/metrics/table.py',
    rule: 'unbound-name',
    message: '`metric` is unbound',
    line: 242,
    // a rule type the code does not know fails the rule, instead of leaving `metric` unbound
    fix: (t) => once(t, 'value2 = value2.lower()\n\n                        if rl["type"] == "includes":', 'value2 = value2.lower()\n                        metric: bool = False\n                        if rl["type"] == "includes":'),
  },
  {
    name: 'Spider2-V compare_image_list: zip with no length check',
    suite: 'spider2v',
    copy: ['desktop_env/evaluators/metrics/gimp.py'],
    file: 'desktop_env/evaluators/metrics/gimp.py',
    rule: 'vacuous-verdict',
    message: 'stops at the shorter',
    line: 14,
    fix: (t) => once(t, 'zip(pred_img_path_list, gold_img_path_list):', 'zip(pred_img_path_list, gold_img_path_list, strict=True):'),
  },
  {
    name: 'Spider2-V task file: a real task with a dropped comma',
    suite: 'spider2v',
    copy: ['evaluation_examples/examples/dbt/d9310e1b-881d-41a6-9845-fbc5c81e491c/d9310e1b-881d-41a6-9845-fbc5c81e491c.json'],
    file: 'evaluation_examples/examples/dbt/d9310e1b-881d-41a6-9845-fbc5c81e491c/d9310e1b-881d-41a6-9845-fbc5c81e491c.json',
    rule: 'parse-error',
    select: 'evaluator-dispatch',
    message: 'Invalid JSON',
    line: 3,
    mutate: (t) => {
      const lines = t.split('\n');
      lines[1] = lines[1]!.replace(/,\s*$/, '');
      return lines.join('\n');
    },
    fix: (t) => {
      const lines = t.split('\n');
      lines[1] = `${lines[1]!},`;
      return lines.join('\n');
    },
  },
  // stagehand
  {
    name: 'stagehand evals.config.json: a task with no module',
    suite: 'stagehand',
    copy: ['packages/evals/evals.config.json', 'packages/evals/taskConfig.ts', 'packages/evals/index.eval.ts', 'packages/evals/tasks'],
    file: 'packages/evals/evals.config.json',
    rule: 'evaluator-dispatch',
    message: 'peeler_simple',
    line: 64,
    // the module the entry names
    fix: (t) => t,
    adds: { 'packages/evals/tasks/peeler_simple.ts': 'import { EvalFunction } from "../types/evals.js";\n\nexport const peeler_simple: EvalFunction = async ({ v3, logger }) => {\n  const page = v3.context.pages()[0];\n  await page.goto("https://chefstoys.com/");\n  return { _success: true, logs: logger.getLogs() };\n};\n' },
  },
  {
    name: 'stagehand extract_github_commits: a ratio of the count compared with ===',
    suite: 'stagehand',
    copy: ['packages/evals/tasks/extract_github_commits.ts'],
    file: 'packages/evals/tasks/extract_github_commits.ts',
    rule: 'float-equality',
    message: '`commits.length / 3 === 6.666666666666667`',
    line: 42,
    mutate: (t) => once(t, '_success: commits.length === 20,', '_success: commits.length / 3 === 6.666666666666667,'),
    fix: (t) => once(t, '_success: commits.length / 3 === 6.666666666666667,', '_success: Math.abs(commits.length / 3 - 20 / 3) < 1e-9,'),
  },
  // webarena-infinity
  {
    name: 'webarena-infinity elation task_1: requests.get of the state with no timeout',
    suite: 'webarena-infinity',
    copy: ['apps/elation-clinical-records/function-tasks/task_1.py'],
    file: 'apps/elation-clinical-records/function-tasks/task_1.py',
    rule: 'missing-timeout',
    message: 'has no timeout',
    line: 5,
    fix: (t) => once(t, 'requests.get(f"{server_url}/api/state")', 'requests.get(f"{server_url}/api/state", timeout=30)'),
  },
  {
    name: 'webarena-infinity elation task_1: resp.json() with no handling of a non-JSON reply',
    suite: 'webarena-infinity',
    copy: ['apps/elation-clinical-records/function-tasks/task_1.py'],
    file: 'apps/elation-clinical-records/function-tasks/task_1.py',
    rule: 'unguarded-state-read',
    message: 'parses application state',
    line: 8,
    fix: (t) => once(t, '    state = resp.json()\n\n', '    try: state = resp.json()\n    except ValueError: return False, "The state is not JSON."\n'),
  },
  {
    name: 'webarena-infinity elation task_3: a drug name anywhere in a free-text reply',
    suite: 'webarena-infinity',
    copy: ['apps/elation-patient-communication/function-tasks/task_3.py'],
    file: 'apps/elation-patient-communication/function-tasks/task_3.py',
    rule: 'substring-verdict',
    message: '`lisinopril`',
    line: 32,
    fix: (t) => once(t, 'if "Lisinopril" in body or "lisinopril" in body.lower():', 'if "lisinopril" in re.findall(r"[a-z]+", body.lower()):').replace('import requests\n', 'import re, requests\n'),
  },
];


for (const c of CASES) {
  const present = existsSync(path.join(ROOT, c.suite, c.file));
  describe.skipIf(!present)(present ? c.name : `${c.name}: skipped, ${c.suite} is absent`, () => {
    const dir = copyOfSuite(c.suite, c.copy, 'vaudit-rule-mutation-');

    it(c.mutate ? 'is silent as shipped, reported once broken, silent once fixed' : 'is reported as shipped, and not once fixed', { timeout: 120_000 }, () => {
      const p = path.join(dir, c.file);
      let text = readFileSync(p, 'utf8');
      if (c.mutate) {
        expect(check(dir, c.select ?? c.rule).filter((f) => at(c, f))).toEqual([]);
        text = c.mutate(text);
        writeFileSync(p, text);
      }
      const all = check(dir, c.select ?? c.rule);
      const before = all.filter((f) => at(c, f));
      expect(before.length, JSON.stringify(before)).toBe(1);
      expect(before[0]!.message).toContain(c.message);
      const fixed = c.fix(text);
      if (!c.adds) expect(fixed).not.toBe(text);
      expect(fixed.split('\n').length, 'a fix keeps the lines in place').toBe(text.split('\n').length);
      writeFileSync(p, fixed);
      for (const [f, body] of Object.entries(c.adds ?? {})) writeFileSync(path.join(dir, f), body);
      const after = check(dir, c.select ?? c.rule);
      expect(after.filter((f) => at(c, f))).toEqual([]);
      // the fix removed this finding only (no other finding of the rule moved onto or off the site)
      expect(after.filter((f) => f.file === c.file).length).toBe(all.filter((f) => f.file === c.file).length - 1);
    });
  });
}

/**
 * `vaudit init [folder]`: look at a folder the way `vaudit check` would, and write a
 * `vaudit.config.json` for the suite found there — its adapter, include globs for its task files
 * and verifier code, and the rules that apply to what was found (at their default severity, to
 * tune). Prints what it detected: suites, tasks, verifier entries, entrypoints. Never overwrites
 * an existing config without --force; writes atomically.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lint } from '../engine/lint.js';
import { loadRules } from '../contract/registry.js';
import { writeAtomic } from '../core/write-atomic.js';
import { CONFIG_FILE } from '../config/load.js';
import type { Layer } from '../core/types.js';
import type { Suite } from '../suites/types.js';
import { commonDir, rel } from '../core/paths.js';
import { relPath } from '../report/model.js';
import { EXIT_CLEAN, UsageError } from './exit-codes.js';

export interface InitOptions {
  force?: boolean;
}

/** How many entrypoints the summary names before "… and N more". */
const SHOWN_ENTRYPOINTS = 8;

const CODE_GLOBS: Record<string, string> = {
  python: '**/*.py',
  javascript: '**/*.{js,mjs,cjs}',
  typescript: '**/*.{ts,mts,cts}',
};

interface SuiteSummary {
  adapter: string;
  root: string;
  taskFolder: string;
  tasks: number;
  entries: number;
  families: Array<[string, number]>;
  entrypoints: string[];
  unbound: number;
}

export async function runInit(folder: string | undefined, o: InitOptions, io: { cwd: string; stdout: (s: string) => void }): Promise<number> {
  const dir = path.resolve(io.cwd, folder ?? '.');
  if (!existsSync(dir)) throw new UsageError(`No such file or directory: '${folder}'.`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`'${folder}' is not a folder: vaudit init writes ${CONFIG_FILE} into the folder of a suite.`);
  const target = path.join(dir, CONFIG_FILE);
  if (existsSync(target) && !o.force) {
    throw new UsageError(`${shown(io.cwd, target)} already exists; vaudit init does not overwrite it. Pass --force to replace it.`);
  }

  // What `vaudit check` would see there with the defaults: no config (an old one, or one in a
  // parent folder) narrows what init looks at.
  const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-init-'));
  const defaults = path.join(tmp, CONFIG_FILE);
  writeFileSync(defaults, '{ "root": true }\n');
  let result;
  try {
    result = await lint({ paths: [dir], cwd: dir, configPath: defaults });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  try {
    const files = [...result.project.files.values()].filter((f) => path.resolve(f.path) !== target);
    const suites = result.project.suites.map((s) => summarise(s, dir));
    const code = new Map<string, number>();
    for (const f of files) if (f.language !== 'json') code.set(f.language, (code.get(f.language) ?? 0) + 1);
    const bundles = result.project.bundles.size;
    if (suites.length === 0 && code.size === 0) {
      throw new UsageError(`No task suite or verifier code found in '${folder ?? '.'}': vaudit reads *.json task files and *.py, *.js, *.ts verifier code. Run vaudit init in the folder that holds the suite.`);
    }

    // the rules that apply to what was found, at their default severity
    const layers = new Set<Layer>();
    if (suites.length) layers.add('suite');
    if (code.has('python') || suites.some((s) => s.entries > 0)) layers.add('python');
    if (code.has('javascript') || code.has('typescript')) layers.add('javascript');
    if (bundles) layers.add('bundle');
    const allRules = [...(await loadRules()).values()].map((r) => r.meta).sort((a, b) => a.id.localeCompare(b.id));
    const applies = allRules.filter((m) => m.layers.some((l) => layers.has(l)));
    const adapters = [...new Set(suites.map((s) => s.adapter))];

    // With a suite: its task folders and the languages of its code. Without one, the defaults
    // (a task format vaudit learns later must still be read).
    const include = suites.length
      ? [
          ...new Set(suites.map((s) => (s.taskFolder === '.' ? '**/*.json' : `${s.taskFolder}/**/*.json`))),
          ...[...code.keys()].sort().map((l) => CODE_GLOBS[l]!).filter(Boolean),
        ]
      : undefined;
    // The rules that apply are listed, not set: a severity under "rules" overrides the rule's own
    // choice (unbound-name is an error only where a handler swallows the NameError).
    const config: Record<string, unknown> = {
      '//': `Written by vaudit init. Globs are relative to this folder. Every rule is on at its default severity; set one to "off", "warn" or "error" under "rules" ('vaudit rules <id>' documents it).`,
      root: true,
      ...(adapters.length === 1 ? { adapter: adapters[0] } : {}),
      ...(include ? { include } : {}),
      exclude: [],
      // nothing recognised: the declarations to complete, and why detection found nothing
      ...(result.stats.scope?.fallback
        ? {
            '//declare': [
              'vaudit recognised no suite here. Complete "tasks" (files of task records and the module each names, {member} filled from the record) or "entrypoints" (the functions that grade), e.g.',
              '"tasks": [{"files": "tasks/*.json", "module": "checks/{verify}", "export": "verify"}]',
              '"entrypoints": [{"files": "graders/**/*.py", "method": "is_successful"}]',
              ...(result.stats.scope.why ?? []),
            ],
            tasks: [],
            entrypoints: [],
          }
        : {}),
      '//rules that apply': applies.map((m) => `${m.id} (${m.defaultSeverity})`),
      rules: {},
    };
    const existed = existsSync(target);
    writeAtomic(target, JSON.stringify(config, null, 2) + '\n');

    const out: string[] = [`Detected in ${shown(io.cwd, dir)}:`];
    if (suites.length === 0) {
      out.push('  no task suite recognised; verifier code only');
      for (const w of result.stats.scope?.why ?? []) out.push(`    ${w}`);
    }
    for (const s of suites) {
      out.push(`  suite (adapter "${s.adapter}") in ${s.root}: ${s.tasks} task${s.tasks === 1 ? '' : 's'} under ${s.taskFolder}/, ${s.entries} verifier entr${s.entries === 1 ? 'y' : 'ies'}`);
      if (s.families.length) out.push(`    families: ${s.families.map(([f, n]) => `${f} ${n}`).join(', ')}`);
      out.push(`    entrypoints: ${s.entrypoints.length} verifier function${s.entrypoints.length === 1 ? '' : 's'}${s.unbound ? ` (${s.unbound} entr${s.unbound === 1 ? 'y' : 'ies'} bound to none)` : ''}`);
      for (const e of s.entrypoints.slice(0, SHOWN_ENTRYPOINTS)) out.push(`      ${e}`);
      if (s.entrypoints.length > SHOWN_ENTRYPOINTS) out.push(`      … and ${s.entrypoints.length - SHOWN_ENTRYPOINTS} more`);
    }
    const langs = [...code].sort().map(([l, n]) => `${n} ${l === 'python' ? 'Python' : l === 'javascript' ? 'JavaScript' : 'TypeScript'}`);
    out.push(`  verifier code: ${langs.length ? langs.join(', ') : 'none'} file${[...code.values()].reduce((a, b) => a + b, 0) === 1 ? '' : 's'}${bundles ? `, ${bundles} correctness-model bundle${bundles === 1 ? '' : 's'}` : ''}`);
    out.push(
      '',
      `${existed ? 'Replaced' : 'Wrote'} ${shown(io.cwd, target)}: ${adapters.length === 1 ? `adapter "${adapters[0]}", ` : ''}include ${include ? include.join(', ') : 'the defaults'}; ${applies.length} of ${allRules.length} rules apply (${[...layers].join(', ')} layers).`,
      `Next: vaudit check ${shown(io.cwd, dir)}`,
    );
    io.stdout(out.join('\n') + '\n');
    return EXIT_CLEAN;
  } finally {
    result.dispose();
  }
}

function summarise(s: Suite, dir: string): SuiteSummary {
  const families = new Map<string, number>();
  const entrypoints = new Set<string>();
  let entries = 0;
  let unbound = 0;
  for (const t of s.tasks) {
    families.set(t.family, (families.get(t.family) ?? 0) + 1);
    for (const e of t.entries) {
      entries++;
      if (e.binding) entrypoints.add(`${rel(dir, e.binding.file)}: ${e.binding.qualname}`);
      else unbound++;
    }
  }
  return {
    adapter: s.adapter,
    root: rel(dir, s.root) || '.',
    taskFolder: s.tasks.length ? rel(dir, commonDir(s.tasks.map((t) => t.file.path))) || '.' : '.',
    tasks: s.tasks.length,
    entries,
    families: [...families].sort((a, b) => a[0].localeCompare(b[0])),
    entrypoints: [...entrypoints].sort(),
    unbound,
  };
}

/** A path as the user sees it: relative to the current folder, absolute outside it. */
function shown(cwd: string, p: string): string {
  return relPath(cwd, p) || '.';
}


/**
 * File discovery: explicit files are honoured (unless `forceExclude` and a config
 * exclude matches), directories are globbed with the include patterns minus the
 * default and configured ignores.
 */
import { glob } from 'tinyglobby';
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatchLike from '../core/match.js';
import { languageOf, type FileProblem } from '../core/load.js';
import { rel } from '../core/paths.js';

const DEFAULT_INCLUDE = ['**/*.{json,jsonl}', '**/*.py', '**/*.{js,mjs,cjs}', '**/*.{ts,mts,cts}'];
const IGNORED_FOLDERS = ['node_modules', '.git', 'dist', 'build', 'out', 'coverage', '.venv', 'venv', '__pycache__', '.toolchain', '.vaudit-cache'];
const IGNORED_FILES = ['**/package-lock.json', '**/*.d.ts', '**/*.min.js'];
export const DEFAULT_IGNORES = [...IGNORED_FOLDERS.map((d) => `**/${d}/**`), ...IGNORED_FILES];
/** DEFAULT_IGNORES as four globs, the folders in one: tinyglobby tests every folder it enters and
 *  every file it lists against each ignore glob (one picomatch call each). The same verdicts: picomatch
 *  compiles the braces to an alternation between the same prefix and suffix (test/glob-match.test.ts). */
export const DEFAULT_IGNORE_GLOBS = [`**/{${IGNORED_FOLDERS.join(',')}}/**`, ...IGNORED_FILES];

export interface DiscoverOptions {
  cwd: string;
  include?: string[];
  exclude?: string[];
  forceExclude?: boolean;
  /** Folder the include/exclude globs are relative to (the config's folder); default: each input. */
  base?: string;
}

export interface Discovered {
  /** Absolute paths, sorted, de-duplicated. */
  files: string[];
  problems: FileProblem[];
}

export async function discoverFiles(inputs: readonly string[], opts: DiscoverOptions): Promise<Discovered> {
  const files = new Set<string>();
  const problems: FileProblem[] = [];
  const include = opts.include?.length ? opts.include : DEFAULT_INCLUDE;
  const ignore = [...DEFAULT_IGNORE_GLOBS, ...(opts.exclude ?? [])];
  // a named file is tested against the globs a folder's walk ignores (--force-exclude)
  const ignored = picomatchLike(ignore);
  for (const input of inputs.length ? inputs : ['.']) {
    const abs = path.resolve(opts.cwd, input);
    let st;
    try {
      st = await lstat(abs);
      if (st.isSymbolicLink()) {
        await realpath(abs); // throws on loops / dangling links
        st = await stat(abs);
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push({
        path: abs,
        message: code === 'ELOOP' ? 'Cannot read path: symbolic link loop.' :
          code === 'ENOENT' ? 'No such file or directory.' : `Cannot read path: ${(err as Error).message}.`,
      });
      continue;
    }
    const base = opts.base && within(opts.base, abs) ? opts.base : undefined;
    if (st.isDirectory()) {
      // globs are relative to the config's folder, also when a subfolder of it is checked
      const found = await glob(include, { cwd: base ?? abs, ignore, absolute: true, dot: false, followSymbolicLinks: false, onlyFiles: true });
      for (const f of found) if (languageOf(f) && (!base || within(abs, f))) files.add(path.normalize(f));
    } else {
      const r = rel(base ?? opts.cwd, abs);
      if (opts.forceExclude && ignored(r)) continue;
      if (!languageOf(abs)) continue;
      files.add(abs);
    }
  }
  return { files: [...files].sort(), problems };
}

/** True when `p` is `dir` or lies inside it. */
function within(dir: string, p: string): boolean {
  const r = path.relative(dir, p);
  return r === '' || (!r.startsWith(`..${path.sep}`) && r !== '..' && !path.isAbsolute(r));
}

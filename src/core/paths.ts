import path from 'node:path';

/** `p` relative to `root`, with forward slashes (globs, fingerprints, baselines, reports). */
export function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/');
}

/** The deepest folder holding every one of `files` (absolute paths; at least one). */
export function commonDir(files: readonly string[]): string {
  let dir = path.dirname(files[0]!);
  for (const f of files) while (!(f.startsWith(dir + path.sep) || path.dirname(f) === dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

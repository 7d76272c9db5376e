import path from 'node:path';

/** `p` relative to `root`, with forward slashes (globs, fingerprints, baselines, reports). */
export function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/');
}

/** Glob matching of relative, forward-slash paths (picomatch, the matcher tinyglobby uses). */
import picomatch from 'picomatch';

/**
 * A matcher for any of `patterns`, with picomatch's own semantics for these options: a non-empty path
 * matches a pattern when it is the pattern's text or the pattern's regular expression
 * (`picomatch.makeRe`, what picomatch's matcher tests) matches it. picomatch's matcher does this
 * through `picomatch.test` and builds a result object for every pattern and path; a run tests every
 * file against a suite's entrypoint globs. Options that change how a path is read first (`format`,
 * `windows`, `matchBase`/`basename`, `ignore`, callbacks) are not supported.
 */
export function compileGlobs(patterns: readonly string[], options?: { dot?: boolean; nocase?: boolean }): (relPath: string) => boolean {
  const res = patterns.map((p) => picomatch.makeRe(p, options));
  return (s) => {
    if (s === '') return false;
    for (let k = 0; k < res.length; k++) if (s === patterns[k] || res[k]!.test(s)) return true;
    return false;
  };
}

export default function globMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  if (patterns.length === 0) return () => false;
  return compileGlobs(patterns, { dot: true });
}

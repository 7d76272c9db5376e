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
  // a literal pattern matches its own text only (picomatch escapes it and anchors it): a set, not a
  // regular expression each (issue 30: 140,000 config ignores naming files compiled 140,000 of them)
  const literal = new Set<string>();
  const globs: string[] = [];
  for (const p of patterns) {
    if (!options?.nocase && isLiteralGlob(p)) literal.add(p);
    else globs.push(p);
  }
  const res = globs.map((p) => picomatch.makeRe(p, options));
  return (s) => {
    if (s === '') return false;
    if (literal.has(s)) return true;
    for (let k = 0; k < res.length; k++) if (s === globs[k] || res[k]!.test(s)) return true;
    return false;
  };
}

/** A pattern picomatch matches against its own text only: word characters, `.`, `-` and `/`, not
 *  starting with `./` (which picomatch strips). test/glob-match.test.ts checks these against picomatch. */
export function isLiteralGlob(p: string): boolean {
  return /^[\w.\-/]+$/.test(p) && !p.startsWith('./');
}

export default function globMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  if (patterns.length === 0) return () => false;
  return compileGlobs(patterns, { dot: true });
}

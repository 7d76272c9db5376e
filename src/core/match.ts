/** Glob matching of relative, forward-slash paths (picomatch, the matcher tinyglobby uses). */
import picomatch from 'picomatch';

export default function globMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  if (patterns.length === 0) return () => false;
  const m = picomatch([...patterns], { dot: true });
  return (p) => m(p);
}

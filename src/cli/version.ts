import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** vaudit's own version, from package.json (works from src/ and dist/src/). */
export const VERSION: string = (() => {
  for (const p of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(path.resolve(here, p), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'vaudit' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
})();

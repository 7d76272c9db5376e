import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Every `.py` file under `dir` (absolute, sorted); none when `dir` does not exist. */
export function pyFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.py')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Browser pages: plain `<script src>` files that an HTML page loads share one
 * global scope, so a name one script uses may be declared by a sibling script
 * of the same page. `pageScripts` reads every `.html` file under the project
 * root and returns the (absolute) scripts they load as classic scripts
 * (`type="module"` scripts have their own scope and are not included).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { DEFAULT_IGNORE_GLOBS } from './discover.js';

const SCRIPT = /<script\b([^>]*)>/gi;

export async function pageScripts(knownFiles: ReadonlySet<string>): Promise<Set<string>> {
  const out = new Set<string>();
  const scripts = [...knownFiles].filter((f) => /\.(m?js|cjs)$/.test(f));
  if (!scripts.length) return out;
  // pages live at or above their scripts: search from the common folder of the project's files
  let root = path.dirname(scripts[0]!);
  for (const s of knownFiles) while (!s.startsWith(root + path.sep) && path.dirname(root) !== root) root = path.dirname(root);
  let pages: string[];
  try {
    pages = await glob(['**/*.html', '**/*.htm'], { cwd: root, absolute: true, ignore: DEFAULT_IGNORE_GLOBS });
  } catch {
    return out;
  }
  await Promise.all(pages.slice(0, 5000).map(async (page) => {
    let html: string;
    try { html = await readFile(page, 'utf8'); } catch { return; }
    for (const m of html.matchAll(SCRIPT)) {
      const attrs = m[1]!;
      if (/\btype\s*=\s*["']?module/i.test(attrs)) continue;
      const src = /\bsrc\s*=\s*["']([^"'#?]+)/i.exec(attrs)?.[1];
      if (!src || /^[a-z]+:\/\//i.test(src) || src.startsWith('//')) continue;
      const candidates = src.startsWith('/') ? [path.join(root, src), path.join(path.dirname(page), src)] : [path.resolve(path.dirname(page), src)];
      for (const c of candidates) if (knownFiles.has(c)) out.add(c);
    }
  }));
  return out;
}

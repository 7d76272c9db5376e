/**
 * Routes a config declares (`"tasks": [{"files": "apps/*\/real-tasks.json", "module": "{verify}",
 * "export": "verify"}]`) for a suite whose harness vaudit cannot follow: the same `ModuleRoute`s
 * the harness learner produces, limited to the declared files.
 */
import * as path from 'node:path';
import { compileGlobs } from '../../core/match.js';
import type { ModuleRoute } from './routes.js';
import type { Piece, Template } from './template.js';

export interface TaskDecl {
  files: string | string[];
  module: string;
  export?: string;
  reason?: string;
}

const HOLE = /\{([^{}]*)\}/g;

function parseTemplate(text: string): Template {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(HOLE)) {
    if (m.index > last) out.push({ kind: 'lit', text: text.slice(last, m.index) });
    out.push({ kind: 'member', name: m[1]!.trim() });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: 'lit', text: text.slice(last) });
  return out;
}

export function declaredRoutes(decls: readonly TaskDecl[], configFile: string): ModuleRoute[] {
  const dir = path.dirname(configFile);
  return decls.map((d, i) => {
    const globs = Array.isArray(d.files) ? d.files : [d.files];
    const match = compileGlobs(globs, { dot: true });
    const exp = d.export ? /^\{([^{}]*)\}$/.exec(d.export.trim()) : null;
    const ext = path.extname(d.module.replace(HOLE, ''));
    return {
      file: configFile,
      line: i + 1,
      language: ext === '.py' ? 'python' as const : 'js' as const,
      template: parseTemplate(d.module),
      declared: true,
      files: (p: string) => match(path.relative(dir, p).split(path.sep).join('/')),
      ...(exp ? { exportFromMember: exp[1]!.trim() } : d.export ? { exportName: d.export } : {}),
    };
  });
}

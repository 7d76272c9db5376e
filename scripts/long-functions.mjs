/**
 * Functions in src/ and rules/ longer than a limit (default 150 lines), longest first, measured with
 * the TypeScript compiler API: `node scripts/long-functions.mjs [limit]`. eslint's
 * max-lines-per-function enforces the same limit on src/ and rules/, with no exemptions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const limit = Number(process.argv[2] ?? 150);
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'fixtures' || e.name === 'docs' ? [] : walk(path.join(d, e.name))) : e.name.endsWith('.ts') ? [path.join(d, e.name)] : []));
const rows = [];
for (const file of [...walk(path.join(ROOT, 'src')), ...walk(path.join(ROOT, 'rules'))]) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const b = sf.getLineAndCharacterOfPosition(n.end).line;
      const lines = b - a + 1;
      if (lines > limit) {
        const name = n.name?.getText(sf) ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText(sf) : ts.isPropertyAssignment(n.parent) ? n.parent.name.getText(sf) : '(anonymous)');
        rows.push({ lines, at: `${path.relative(ROOT, file)}:${a + 1}`, name });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
rows.sort((x, y) => y.lines - x.lines);
for (const r of rows) console.log(`${String(r.lines).padStart(5)}  ${r.name}  ${r.at}`);
process.exitCode = rows.length ? 1 : 0;

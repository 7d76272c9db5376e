/**
 * Code actions on vaudit's diagnostics: the finding's fix when it has one (the
 * same edits as `vaudit check --fix`), "Disable <rule> for this line" (a
 * Python or JS/TS comment directive, or a `"//vaudit-ignore"` member in task
 * JSON) and "Show documentation for <rule>".
 */
import { CodeActionKind, type CodeAction, type CodeActionParams, type Diagnostic, type TextEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LintSession } from '../engine/session.js';
import { INTERNAL_ERROR_RULE } from '../engine/pass.js';
import { languageOf } from '../core/load.js';
import { PARSE_ERROR_RULE, type Autofix } from '../core/types.js';
import { jsonDocumentOf } from '../lang/json/cache.js';
import { SOURCE, type DiagnosticData } from './convert.js';
import { jsDisableEdit, jsonDisableEdit, pythonDisableEdit, type OffsetEdit } from './edits.js';
import { toPath, type LspContext } from './context.js';
import { SHOW_DOCS_COMMAND, type RuleDocs } from './rule-docs.js';
import type { SessionRegistry } from './sessions.js';
import type { Publisher } from './publish.js';

/** Findings that no directive can disable. */
const NOT_DISABLEABLE = new Set([PARSE_ERROR_RULE, INTERNAL_ERROR_RULE, 'config']);

export function registerCodeActions(ctx: LspContext, sessions: SessionRegistry, docs: RuleDocs, publisher: Publisher): void {
  ctx.connection.onCodeAction(async (params: CodeActionParams) => {
    const doc = ctx.documents.get(params.textDocument.uri);
    const p = toPath(params.textDocument.uri);
    if (!doc || !p) return [];
    let session: LintSession | undefined;
    try { session = await sessions.forFile(p); } catch { /* no session: no actions */ }
    const actions: CodeAction[] = [];
    const seenDocs = new Set<string>();
    for (const d of params.context.diagnostics) {
      if (d.source !== SOURCE) continue;
      const data = d.data as DiagnosticData | undefined;
      const ruleId = data?.ruleId ?? (typeof d.code === 'string' ? d.code : undefined);
      if (!ruleId) continue;
      const autofix = fixOf(publisher, doc, data);
      if (autofix) actions.push(fixAction(doc, d, autofix));
      if (!NOT_DISABLEABLE.has(ruleId)) {
        const disable = disableAction(doc, p, d, ruleId, data, session);
        if (disable) actions.push({ ...disable, isPreferred: !autofix }); // the fix, where there is one, is preferred
      }
      if (docs.table.has(ruleId) && !seenDocs.has(ruleId)) {
        seenDocs.add(ruleId);
        actions.push({
          title: `Show documentation for ${ruleId}`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          command: { title: `Show documentation for ${ruleId}`, command: SHOW_DOCS_COMMAND, arguments: [ruleId] },
        });
      }
    }
    return actions;
  });
}

/** The fix of the diagnostic's finding, when the findings shown are of the document as it is now (a fix's
 *  offsets are of the text it was computed on). */
function fixOf(publisher: Publisher, doc: TextDocument, data: DiagnosticData | undefined): Autofix | undefined {
  const shown = publisher.result(doc.uri);
  if (!data?.fingerprint || !shown || shown.version !== doc.version) return undefined;
  return shown.findings.find((f) => f.fingerprint === data.fingerprint)?.autofix;
}

/** The finding's own fix (`vaudit check --fix` applies the same edits), offered first. */
function fixAction(doc: TextDocument, d: Diagnostic, fix: Autofix): CodeAction {
  const edits: TextEdit[] = fix.edits.map((e) => ({ range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) }, newText: e.newText }));
  return { title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [doc.uri]: edits } } };
}

/** "Disable <rule> for this line" for a diagnostic, where a safe edit exists. */
function disableAction(doc: TextDocument, file: string, d: Diagnostic, ruleId: string, data: DiagnosticData | undefined, session: LintSession | undefined): CodeAction | undefined {
  const lang = languageOf(file);
  const text = doc.getText();
  let edit: OffsetEdit | undefined;
  let title = `Disable ${ruleId} for this line`;
  if (lang === 'python') edit = pythonDisableEdit(text, d.range.start.line, ruleId);
  else if (lang === 'javascript' || lang === 'typescript') edit = jsDisableEdit(text, d.range.start.line, ruleId);
  else if (lang === 'json' && data?.pointer !== undefined && session) {
    const f = session.file(file);
    const parsed = f && f.source.text === text ? jsonDocumentOf(f) : undefined;
    if (parsed?.ok) {
      const r = jsonDisableEdit(text, parsed.doc.values, data.pointer, ruleId);
      if (r) {
        edit = r.edit;
        title = `Disable ${ruleId} for this line (in ${r.objectPointer || 'the task'})`;
      }
    }
  }
  if (!edit) return undefined;
  const te: TextEdit = { range: { start: doc.positionAt(edit.start), end: doc.positionAt(edit.end) }, newText: edit.newText };
  return { title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [doc.uri]: [te] } } };
}

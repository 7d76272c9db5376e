/**
 * Rule documentation for the client: a Markdown page per rule written once to a
 * temp folder (a diagnostic's `codeDescription.href`), and the
 * "Show documentation for <rule>" command.
 */
import path from 'node:path';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { MessageType } from 'vscode-languageserver/node';
import type { Rule } from '../contract/rule.js';
import { loadRules } from '../contract/registry.js';
import { renderRuleMarkdown } from '../report/rule-docs.js';
import { VERSION } from '../cli/version.js';
import { toUri, type LspContext } from './context.js';

export const SHOW_DOCS_COMMAND = 'vaudit.showDocumentation';

export class RuleDocs {
  /** The rule table of the sessions (empty until the first one loads). */
  table: ReadonlyMap<string, Rule> = new Map();
  private loading?: Promise<ReadonlyMap<string, Rule>>;
  private readonly dir = path.join(tmpdir(), `vaudit-lsp-docs-${VERSION}-${process.getuid?.() ?? 'u'}`);
  private readonly hrefs = new Map<string, string | undefined>();

  constructor(private readonly ruleSet?: ReadonlyMap<string, Rule>) {}

  /** The rule table (tests and embedders pass their own; default rules/). */
  rules(): Promise<ReadonlyMap<string, Rule>> {
    return (this.loading ??= (this.ruleSet ? Promise.resolve(this.ruleSet) : loadRules()).then((t) => (this.table = t)));
  }

  href(ruleId: string): string | undefined {
    if (this.hrefs.has(ruleId)) return this.hrefs.get(ruleId);
    const rule = this.table.get(ruleId);
    let href: string | undefined;
    if (rule) {
      try {
        mkdirSync(this.dir, { recursive: true });
        const file = path.join(this.dir, `${ruleId}.md`);
        if (!existsSync(file)) writeFileSync(file, renderRuleMarkdown(rule.meta));
        href = toUri(file);
      } catch {
        href = undefined;
      }
    }
    this.hrefs.set(ruleId, href);
    return href;
  }

  /** `workspace/executeCommand` for SHOW_DOCS_COMMAND: open the rule's page, or show its description. */
  register(ctx: LspContext): void {
    ctx.connection.onExecuteCommand(async (params) => {
      if (params.command !== SHOW_DOCS_COMMAND) return null;
      const ruleId = String(params.arguments?.[0] ?? '');
      if (this.table.size === 0) await this.rules();
      const rule = this.table.get(ruleId);
      if (!rule) {
        void ctx.connection.sendNotification('window/showMessage', { type: MessageType.Warning, message: `vaudit: no rule '${ruleId}'.` });
        return null;
      }
      const href = this.href(ruleId);
      if (href && ctx.caps.window?.showDocument?.support) {
        await ctx.connection.window.showDocument({ uri: href, takeFocus: true }).catch(() => undefined);
      } else {
        void ctx.connection.sendNotification('window/showMessage', { type: MessageType.Info, message: `${ruleId}: ${rule.meta.description}${href ? ` (${href})` : ''}` });
      }
      return href ?? null;
    });
  }
}

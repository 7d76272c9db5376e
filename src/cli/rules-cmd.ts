/** `vaudit rules [id]`: the catalogue, or one rule's documentation. */
import { loadRules } from '../contract/registry.js';
import { renderRuleMarkdown, renderRuleText, severityText } from '../report/rule-docs.js';
import { UsageError } from './exit-codes.js';
import { BUILTIN_RULES, builtinRule, renderBuiltin } from '../contract/builtin-rules.js';

export async function runRules(id: string | undefined, o: { format?: string }, out: (s: string) => void): Promise<number> {
  const rules = await loadRules();
  if (id) {
    const r = rules.get(id);
    const builtin = builtinRule(id);
    if (!r && builtin) {
      out(o.format === 'json' ? JSON.stringify(builtin, null, 2) + '\n' : renderBuiltin(builtin));
      return 0;
    }
    if (!r) {
      const near = [...rules.keys()].filter((k) => k.includes(id) || id.includes(k.split('-')[0]!));
      throw new UsageError(`Unknown rule '${id}'.${near.length ? ` Did you mean: ${near.join(', ')}?` : ''} Run 'vaudit rules' for the list.`);
    }
    out(o.format === 'json' ? JSON.stringify(r.meta, null, 2) + '\n' : o.format === 'markdown' ? renderRuleMarkdown(r.meta) : renderRuleText(r.meta));
    return 0;
  }
  const metas = [...rules.values()].map((r) => r.meta).sort((a, b) => a.id.localeCompare(b.id));
  if (o.format === 'json') {
    out(JSON.stringify(metas.map((m) => ({ id: m.id, description: m.description, defaultSeverity: m.defaultSeverity, ...(m.otherSeverity ? { otherSeverity: m.otherSeverity } : {}), layers: m.layers, languages: m.languages, confirm: m.confirm ?? null })), null, 2) + '\n');
    return 0;
  }
  const w = Math.max(...metas.map((m) => m.id.length), ...BUILTIN_RULES.map((b) => b.id.length));
  for (const m of metas) out(`${m.id.padEnd(w)}  ${severityText(m, true).padEnd(10)}  ${m.confirm ? 'confirm' : '       '}  ${m.description}\n`);
  out(`\nReported by vaudit itself:\n`);
  for (const b of BUILTIN_RULES) out(`${b.id.padEnd(w)}  ${b.severity.padEnd(10)}           ${b.description}\n`);
  out(`\n${metas.length} rules. 'vaudit rules <id>' shows a rule's documentation.\n`);
  return 0;
}

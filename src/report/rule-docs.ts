/** Renders a rule's documentation (CLI `vaudit rules <id>`, SARIF help, README table). */
import type { RuleMeta } from '../contract/rule.js';
import { referencesFor } from './audit-refs.js';

function fence(file: string, content: string): string {
  const lang = file.endsWith('.py') ? 'python' : file.endsWith('.json') ? 'json' : file.endsWith('.ts') ? 'ts' : 'js';
  return `\`${file}\`\n\n\`\`\`${lang}\n${content.trimEnd()}\n\`\`\``;
}

/** "warn" or, for a rule that judges some findings' severity itself, "warn (error when …)". */
export function severityText(meta: RuleMeta, short = false): string {
  const o = meta.otherSeverity;
  if (!o) return meta.defaultSeverity;
  return short ? `${meta.defaultSeverity}/${o.severity}` : `${meta.defaultSeverity} (${o.severity} when ${o.when})`;
}

export function renderRuleMarkdown(meta: RuleMeta): string {
  const parts = [
    `## ${meta.id}`,
    meta.description,
    `**Default severity:** ${severityText(meta)} · **Layers:** ${meta.layers.join(', ')} · **Confirmable:** ${meta.confirm ? `${meta.confirm.staticOnly ? 'no' : 'yes'} — ${meta.confirm.description}` : 'no'}`,
    `### What it does\n${meta.docs.whatItDoes}`,
    `### Why is this bad?\n${meta.docs.why}`,
    `### Incorrect\n${(meta.docs.incorrect ?? []).map((ex) => (ex.note ? ex.note + '\n\n' : '') + Object.entries(ex.files).map(([f, c]) => fence(f, c)).join('\n\n')).join('\n\n')}`,
    `### Correct\n${(meta.docs.correct ?? []).map((ex) => (ex.note ? ex.note + '\n\n' : '') + Object.entries(ex.files).map(([f, c]) => fence(f, c)).join('\n\n')).join('\n\n')}`,
  ];
  const options = renderOptions(meta.id, meta.optionsSchema, meta.defaultOptions as Record<string, unknown> | undefined);
  if (options) parts.push(`### Options\n${options}`);
  const refs = referencesFor(meta.docs.references ?? [], [meta.description, meta.docs.whatItDoes, meta.docs.why]);
  if (refs.length) parts.push(`### References\n${refs.map((r) => `- ${r}`).join('\n')}`);
  return parts.join('\n\n') + '\n';
}

/** The options a rule's schema declares, one line each (config: `"rules": {"<id>": ["warn", {…}]}`). */
function renderOptions(id: string, schema: Record<string, unknown> | undefined, defaults: Record<string, unknown> = {}): string {
  const props = (schema?.properties ?? {}) as Record<string, { type?: string | string[]; items?: { type?: string }; description?: string }>;
  const rows = Object.entries(props).map(([name, p]) => {
    const type = p.type === 'array' && p.items?.type ? `${p.items.type}[]` : Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any');
    const def = name in defaults ? ` Default: \`${JSON.stringify(defaults[name])}\`.` : '';
    return `- \`${name}\` (${type}): ${p.description ?? ''}${def}`.trimEnd();
  });
  return rows.length ? `Set in the config as \`"rules": {"${id}": ["warn", {…}]}\`; validated when the config loads.\n\n${rows.join('\n')}` : '';
}

export function renderRuleText(meta: RuleMeta): string {
  return renderRuleMarkdown(meta).replace(/^#+ /gm, '').replace(/\*\*/g, '');
}

/** The README rule table (generated; a test keeps README in sync). */
export function renderRuleTable(metas: readonly RuleMeta[]): string {
  const rows = [...metas].sort((a, b) => a.id.localeCompare(b.id)).map(
    (m) => `| \`${m.id}\` | ${m.description.replace(/\|/g, '\\|')} | ${severityText(m, true)} | ${m.layers.join(', ')} | ${m.confirm && !m.confirm.staticOnly ? '✔' : ''} |`,
  );
  return ['| rule | what it flags | default | layers | confirm |', '|---|---|---|---|---|', ...rows].join('\n');
}

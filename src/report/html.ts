/**
 * The audit report as one self-contained HTML page (`--format html`): inline
 * CSS, no script, no external resource (a Content-Security-Policy forbids any
 * load), so it can be published as a CI artifact or opened offline.
 * Same content as the markdown report (see `buildAudit`).
 */
import type { ReportInput } from './model.js';
import { buildAudit, repeatedText, scopeSentence, totalsSentence, type AuditSummaryRow } from './markdown.js';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff; --alt: #f6f8fa;
  --err: #cf222e; --warn: #9a6700; --ok: #1a7f37; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --bg: #0d1117; --alt: #151b23;
  --err: #f85149; --warn: #d29922; --ok: #3fb950; } }
* { box-sizing: border-box; }
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); background: var(--bg);
  margin: 0 auto; padding: 24px; max-width: 1400px; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
p { margin: 6px 0; } .muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 6px 8px; vertical-align: top; text-align: left; }
th { background: var(--alt); } tbody tr:nth-child(even) { background: var(--alt); }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
a { color: inherit; }
.sev { font-weight: 600; text-transform: capitalize; } .sev-error { color: var(--err); } .sev-warning { color: var(--warn); }
.st { font-weight: 600; } .st-confirmed { color: var(--err); } .st-refuted { color: var(--ok); }
.loc { display: block; margin-top: 4px; font-size: 12px; }
td.id { white-space: nowrap; font-weight: 600; }
`;

function summaryTable(caption: string, head: string, rows: AuditSummaryRow[], code: boolean, describe: boolean): string {
  const body = rows
    .map(
      (r) =>
        `<tr><td>${code ? `<code>${esc(r.key)}</code>` : esc(r.key)}</td><td class="n">${r.total}</td><td class="n">${r.errors}</td>` +
        `<td class="n">${r.warnings}</td><td class="n">${r.confirmed}</td>${describe ? `<td>${esc(r.description ?? '')}</td>` : ''}</tr>`,
    )
    .join('\n');
  return (
    `<table class="summary" id="summary-${esc(head.toLowerCase())}"><caption class="muted">${esc(caption)}</caption>\n` +
    `<thead><tr><th>${esc(head)}</th><th class="n">Findings</th><th class="n">Errors</th><th class="n">Warnings</th><th class="n">Confirmed</th>${describe ? '<th>Checks</th>' : ''}</tr></thead>\n` +
    `<tbody>\n${body}\n</tbody></table>`
  );
}

export function formatHtml(input: ReportInput): string {
  const a = buildAudit(input);
  const parts: string[] = [];
  parts.push(`<h1>${esc(a.title)}</h1>`, '<h2>Scope</h2>', `<p>${esc(scopeSentence(a))}</p>`, `<p id="totals">${esc(totalsSentence(a))}</p>`);
  if (a.shard) parts.push(`<p class="muted">This report covers shard ${a.shard.index} of ${a.shard.total}; merge the shards with <code>vaudit merge</code>.</p>`);
  if (a.controlRuns !== undefined) parts.push(`<p>Control cases: ${a.controlRuns} run${a.controlRuns === 1 ? '' : 's'} executed by the host.</p>`);
  for (const l of a.isolation ?? []) parts.push(`<p class="isolation">${esc(l)}</p>`);
  if (a.baseline) {
    parts.push(`<p>Baseline: ${a.baseline.matched} finding${a.baseline.matched === 1 ? '' : 's'} matched the baseline and are not listed.</p>`);
    if (a.baseline.stale.length) {
      parts.push('<ul>' + a.baseline.stale.map((s) => `<li>Stale baseline entry: <code>${esc(s.file)}</code> ${esc(s.ruleId)} (${s.count} fewer); rewrite it with <code>--baseline-write</code>.</li>`).join('') + '</ul>');
    }
  }
  if (a.rows.length) {
    parts.push('<h2>Summary by family</h2>', summaryTable('Findings per app family (a verifier module counts for every family routed to it).', 'Family', a.families, false, false));
    parts.push('<h2>Summary by rule</h2>', summaryTable('Findings per rule.', 'Rule', a.rules, true, true));
    parts.push('<h2>Findings</h2>');
    const rows = a.rows.map((r) => {
      const ptr = r.pointer ? ` <code>${esc(r.pointer)}</code>` : '';
      const cls = `st st-${r.evidence.status.replace(/[^a-zA-Z]/g, '-')}`;
      const also = r.related.map((l) => `<span class="loc related">also <a href="${esc(l.href)}">${esc(l.location)}</a>${l.message ? ` ${esc(l.message)}` : ''}</span>`).join('');
      return (
        `<tr id="${esc(r.id)}" data-rule="${esc(r.ruleId)}" data-severity="${r.severity}"${r.fingerprint ? ` data-fingerprint="${esc(r.fingerprint)}"` : ''}${r.repeated ? ` data-repeated="${r.repeated.findings}"` : ''}>` +
        `<td class="id"><a href="#${esc(r.id)}">${esc(r.id)}</a></td>` +
        `<td class="sev sev-${r.severity}">${r.severity}</td>` +
        `<td>${esc(r.finding)}<span class="loc"><a href="${esc(r.href)}">${esc(r.location)}</a>${ptr}${r.repeated ? ` ${esc(repeatedText(r))}` : ''} · <code>${esc(r.ruleId)}</code> · ${esc(r.family)}</span>${also}</td>` +
        `<td><span class="${esc(cls)}">${esc(r.evidence.status)}</span>${r.evidence.text ? `: ${esc(r.evidence.text)}` : ''}</td>` +
        `<td>${esc(r.hint)}</td></tr>`
      );
    });
    parts.push(
      '<table id="findings">\n<thead><tr><th>ID</th><th>Severity</th><th>Finding</th><th>Confirmation evidence</th><th>Resolution hint</th></tr></thead>\n' +
        `<tbody>\n${rows.join('\n')}\n</tbody></table>`,
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="vaudit ${esc(a.toolVersion)}">
<title>${esc(a.title)}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}

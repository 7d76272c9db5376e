/**
 * SARIF 2.1.0 for GitHub code scanning: relative URIs under %SRCROOT% (absolute file:// URIs for
 * files outside the root), stable
 * rule ids with help text, partialFingerprints, confirmation in properties.
 */
import { pathToFileURL } from 'node:url';
import { isolationSummary } from './isolation.js';
import type { ReportInput } from './model.js';
import { isOutside, relPath } from './model.js';
import { renderRuleMarkdown } from './rule-docs.js';
import { builtinRule } from '../contract/builtin-rules.js';
import type { Finding, Range } from '../core/types.js';
import { groupFindings, groupGuid } from './groups.js';


/** SARIF `name`: a Pascal-case friendly name that differs from the id (SARIF1001, SARIF2012). */
function pascal(id: string): string {
  return id.replace(/(^|[-_.])([a-z0-9])/gi, (_m, _d, c: string) => c.toUpperCase());
}

function region(r: Range) {
  return {
    startLine: r.start.line,
    startColumn: r.start.column,
    endLine: Math.max(r.end.line, r.start.line),
    endColumn: r.end.line > r.start.line ? r.end.column : Math.max(r.end.column, r.start.column + (r.end.offset > r.start.offset ? 0 : 1)),
  };
}

/**
 * A file under the root is a relative URI against %SRCROOT% (what GitHub code scanning maps to the
 * repository); a file outside it is an absolute file:// URI with no uriBaseId (SARIF allows a
 * uriBaseId only on relative references; GitHub makes an absolute URI relative to the checkout).
 */
function artifactLocation(root: string, file: string): { uri: string; uriBaseId?: string } {
  if (isOutside(root, file)) return { uri: pathToFileURL(file).href };
  return { uri: relPath(root, file).split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

export function toSarif(input: ReportInput) {
  const ids = [...new Set([...input.rules.keys(), ...input.findings.map((f) => f.ruleId)])].sort();
  const rules = ids.map((id) => {
    const meta = input.rules.get(id)?.meta;
    if (!meta) {
      const b = builtinRule(id);
      const d = b?.description ?? id;
      const help = b ? `${b.whatItDoes}\n\n${b.why}` : d;
      return { id, name: pascal(id), shortDescription: { text: d }, fullDescription: { text: b?.whatItDoes ?? d }, help: { text: help, markdown: help }, defaultConfiguration: { level: b?.severity === 'warn' ? 'warning' : 'error' } };
    }
    return {
      id,
      name: pascal(id),
      shortDescription: { text: meta.description },
      fullDescription: { text: meta.docs.whatItDoes },
      help: { text: `${meta.docs.whatItDoes}\n\n${meta.docs.why}`, markdown: renderRuleMarkdown(meta) },
      defaultConfiguration: { level: meta.defaultSeverity === 'error' ? 'error' : 'warning' },
      properties: { tags: ['verifier-audit', ...meta.layers], ...(meta.confirm ? { confirmable: true } : {}) },
    };
  });
  const index = new Map(ids.map((id, i) => [id, i]));
  // one result per location; the results of a pattern repeated in many files share a correlationGuid
  const guids = new Map<Finding, string>();
  for (const g of groupFindings(input.findings).groups) {
    const guid = groupGuid(g);
    for (const f of g.findings) guids.set(f, guid);
  }
  const results = input.findings.map((f: Finding) => ({
    ruleId: f.ruleId,
    ruleIndex: index.get(f.ruleId),
    level: f.severity === 'error' ? 'error' : 'warning',
    message: { text: f.message },
    locations: [
      { physicalLocation: { artifactLocation: artifactLocation(input.root, f.file), region: region(f.range) } },
    ],
    ...(f.related?.length
      ? {
          relatedLocations: f.related.map((r, i) => ({
            id: i + 1,
            message: { text: r.message },
            physicalLocation: { artifactLocation: artifactLocation(input.root, r.file), region: region(r.range) },
          })),
        }
      : {}),
    partialFingerprints: { 'vaudit/v1': f.fingerprint ?? '' },
    ...(guids.has(f) ? { correlationGuid: guids.get(f) } : {}),
    ...(f.confirmation || f.pointer !== undefined || f.verifierPath === false
      ? { properties: { ...(f.pointer !== undefined ? { jsonPointer: f.pointer } : {}), ...(f.confirmation ? { confirmation: f.confirmation } : {}), ...(f.verifierPath === false ? { verifierPath: false } : {}) } }
      : {}),
  }));
  let rootUri = pathToFileURL(input.root).href;
  if (!rootUri.endsWith('/')) rootUri += '/';
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'vaudit',
            version: input.toolVersion,
            semanticVersion: input.toolVersion,
            informationUri: 'https://github.com/vaudit/vaudit',
            rules,
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: rootUri } },
        columnKind: 'utf16CodeUnits',
        results,
        ...(input.runs || input.stats.scope
          ? { properties: { ...(input.runs ? { controlCaseIsolation: isolationSummary(input), controlCaseRuns: input.runs } : {}), ...(input.stats.scope ? { scope: input.stats.scope } : {}) } }
          : {}),
      },
    ],
  };
}

export function formatSarif(input: ReportInput): string {
  return JSON.stringify(toSarif(input), null, 2) + '\n';
}

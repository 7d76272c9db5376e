/**
 * What the audit ids that rule docs cite mean. Rules cite the defects they were built from:
 * `VER-nnn` are the findings of the ScienceBoard verifier audit (the "seed 003" audit of 169 tasks
 * and 242 verifier entries), and "seed 000" is the external-verifier-grounding guidance that
 * defines correctness-model bundles and the tool host. A reader of `vaudit rules <id>` has neither
 * document, so each citation is rendered with a one-line description.
 */

const AUDIT_SOURCES = {
  'seed 003': 'the verifier audit of the ScienceBoard benchmark (169 VM tasks, 242 verifier entries) that vaudit grew from; its findings are VER-001 … VER-008',
  'seed 000': 'the external-verifier-grounding guidance for correctness-model bundles: one process owner (the host), tool authority, the cell, and "a non-result is not an answer"',
} as const;

/** One line per audit finding (what was wrong in the real verifier). */
export const AUDIT_FINDINGS: Readonly<Record<string, string>> = {
  'VER-001': 'ChimeraX `states` checks with `find` and `value: null` read an unbound `raw_keys`; the NameError was swallowed by `error_factory` and became False.',
  'VER-002': 'A direct ChimeraX state key with `value: null` checked `None not in current_states`, which is true even when the key exists.',
  'VER-003': 'ChimeraX `find` graded only the first matching key, so with several matches the verdict depended on insertion order.',
  'VER-004': 'ChimeraX `info` compared outputs as sets, so a duplicated line could stand in for a missing one.',
  'VER-005': 'The Lean checker searched only stdout for `sorry` (some versions print it on stderr) and ran `lake build` with no timeout.',
  'VER-006': 'TeX compilation could wait forever for interactive input (no `-interaction=nonstopmode`, inherited stdin, no timeout).',
  'VER-007': 'A closed or lost ChimeraX made its state endpoint return non-JSON, which raised through evaluation and looked like an infrastructure failure.',
  'VER-008': 'A fenced answer such as `ANS 109.03` lost its first line because the parser took it for a language tag.',
};

const VER = /\bVER-\d{3}\b/g;
const SEED = /\bseed (\d{3})\b/;

/** Explain one reference string ("VER-003", "seed 000: Tool authority", "docs/bundles.md"). */
function explainReference(ref: string): string {
  const ver = /^(VER-\d{3})\b(.*)$/.exec(ref.trim());
  if (ver && AUDIT_FINDINGS[ver[1]!]) return `${ver[1]} (ScienceBoard audit, seed 003)${ver[2] ?? ''} — ${AUDIT_FINDINGS[ver[1]!]}`;
  const seed = SEED.exec(ref);
  if (seed && ref.trim().startsWith(seed[0])) {
    const src = AUDIT_SOURCES[seed[0] as keyof typeof AUDIT_SOURCES];
    if (src) return `${ref.trim()} — ${seed[0]} is ${src}.`;
  }
  return ref;
}

/**
 * The references a rule's docs should list: its own, plus every audit id its text cites that the
 * list does not already name (so no "VER-002" is left unexplained).
 */
export function referencesFor(refs: readonly string[], texts: readonly string[]): string[] {
  const out = [...refs];
  const named = refs.join(' ');
  const cited = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(VER)) cited.add(m[0]);
  for (const id of [...cited].sort()) if (!named.includes(id) && AUDIT_FINDINGS[id]) out.push(id);
  if (texts.some((t) => /\bseed 000\b/.test(t)) && !/\bseed 000\b/.test(named)) out.push('seed 000');
  return out.map(explainReference);
}

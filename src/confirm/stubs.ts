/**
 * Stub tools and endpoints for control cases: the scripts that stall or prompt, and which tools
 * and local port a function's case must stub (used by the missing-timeout, stream-blind and
 * unguarded-state-read oracles).
 */
import { readFileSync } from 'node:fs';
import { functionSource, num, paramUsage, str, WITNESS_PORT, WITNESS_TOOL, type Target } from './oracle-kit.js';

export const STALL = '#!/bin/sh\nexec sleep 3600\n';
/** An interactive tool: waits for an answer on its stdin (the harness's stdin never answers;
 *  `stdin=DEVNULL` or `input=` gives EOF and the stub exits with an error, as pdflatex would). */
export const PROMPT = '#!/bin/sh\necho "! Emergency stop? Enter file name:"\nIFS= read -r answer || exit 1\nexec sleep 3600\n';

export function functionText(file: string, startLine: number, endLine: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(startLine - 1, endLine).join('\n');
  } catch {
    return '';
  }
}

export function toolNames(code: string): string[] {
  const out: string[] = [];
  // `["tool", …]` list displays only (not subscripts like `item["path"]`)
  const re = /(?<![\w\])\]])\[\s*[rbuf]?(['"])([A-Za-z0-9_.+-]+)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) if (!out.includes(m[2]!) && out.length < 6) out.push(m[2]!);
  return out;
}

export function localPort(code: string): number | undefined {
  const m = /https?:\/\/(?:localhost|127\.0\.0\.1)(?::(\d+))?(?![:\d{])/.exec(code);
  return m ? Number(m[1] ?? 80) : undefined;
}

/** The tools and the local port a control case must stub for this function. */
export function stubTargets(t: Target, control: Record<string, unknown>): { tools: string[]; port?: number } {
  const code = functionSource(t);
  const usages = t.params.map((p) => paramUsage(code, p));
  const tools = str(control.tool) ? [str(control.tool)!] : toolNames(code);
  if (usages.includes('argv') || usages.includes('argvString')) tools.push(WITNESS_TOOL);
  const connectPort = /\b(?:connect|create_connection)\(\s*\(\s*[^,()]+,\s*(\d+)\s*\)/.exec(code)?.[1];
  const port = num(control.port) ?? (usages.includes('url') || usages.includes('port') ? WITNESS_PORT : undefined) ?? localPort(code) ?? (connectPort ? Number(connectPort) : undefined);
  return { tools: [...new Set(tools)], port };
}

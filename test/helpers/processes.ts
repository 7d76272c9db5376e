/**
 * Live processes on this (Linux) machine, read from /proc, for the tests that check nothing a
 * control case started is left running. This test process itself is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Each live process: its pid and its command line (arguments joined by spaces). */
export function liveProcesses(): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      out.push({ pid: Number(e), cmd: readFileSync(`/proc/${e}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** A process's environment as text (`NAME=value` entries NUL-separated); '' once it is gone. */
export function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}

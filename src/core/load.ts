/**
 * Reading one file safely: size limit, binary detection, strict UTF-8.
 * Never throws: a problem becomes a `FileProblem` for that file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Language } from './types.js';

const MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface FileProblem {
  path: string;
  message: string;
  /** What to do (one sentence); the finding falls back to a generic hint. */
  fix?: string;
  /** A file vaudit skips rather than fails on (binary content): reported as a warning. */
  skipped?: true;
}

/** A file that could not be read as text. */
interface LoadProblem extends FileProblem {
  /** The problem as a clause another message can carry ("the file is 6.0 MB, over the 5 MB limit"):
   *  lower case, no full stop (the config loader's message, config/load.ts). */
  reason: string;
}

export type LoadResult = { ok: true; text: string } | { ok: false; problem: LoadProblem };

const decoder = new TextDecoder('utf-8', { fatal: true });

export async function loadText(path: string, maxBytes = MAX_FILE_BYTES): Promise<LoadResult> {
  try {
    const st = await stat(path);
    return statProblem(path, st, maxBytes) ?? decodeBuffer(path, await readFile(path));
  } catch (err) {
    return readProblem(path, err);
  }
}

/** `loadText` without the event loop: a one-shot run reads thousands of files one after another
 *  (no promise per file, one file's buffer alive at a time). The file is opened first and its size
 *  read from the open file (open, fstat, read, close): a `stat` by path before `readFileSync`, which
 *  opens and fstats again, cost a fifth more system calls. Opening never waits (`O_NONBLOCK`: a FIFO
 *  without a writer); what cannot be opened is looked at by path, as `loadText` does. */
export function loadTextSync(path: string, maxBytes = MAX_FILE_BYTES): LoadResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    try {
      return statProblem(path, statSync(path), maxBytes) ?? decodeBuffer(path, readFileSync(path));
    } catch (err) {
      return readProblem(path, err);
    }
  }
  try {
    const st = fstatSync(fd);
    return statProblem(path, st, maxBytes) ?? decodeBuffer(path, readOpenFile(fd, st.size));
  } catch (err) {
    return readProblem(path, err);
  } finally {
    closeSync(fd);
  }
}

/** The content of an open file of `size` bytes (to its end when the size is unknown: 0). */
function readOpenFile(fd: number, size: number): Buffer {
  if (size === 0) return readFileSync(fd);
  const buf = Buffer.allocUnsafe(size);
  let n = 0;
  while (n < size) {
    const r = readSync(fd, buf, n, size - n, null);
    if (r === 0) break;
    n += r;
  }
  return n === size ? buf : buf.subarray(0, n);
}

function statProblem(path: string, st: Stats, maxBytes: number): LoadResult | undefined {
  if (!st.isFile()) return { ok: false, problem: { path, message: 'Not a regular file; skipped.', reason: 'not a regular file', fix: 'Name regular files or folders on the command line.' } };
  if (st.size > maxBytes) {
    const size = `${(st.size / 1048576).toFixed(1)} MB, over the ${maxBytes / 1048576} MB limit`;
    return { ok: false, problem: { path, message: `File is ${size}; skipped.`, reason: `the file is ${size}`, fix: 'Exclude it in vaudit.config.json or split it.' } };
  }
  return undefined;
}

function readProblem(path: string, err: unknown): LoadResult {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === 'EACCES' ? 'permission denied' :
    e.code === 'ELOOP' ? 'symbolic link loop' :
    e.code === 'ENOENT' ? 'no such file' :
    e.code === 'EISDIR' ? 'is a directory' : (e.message ?? String(err));
  return { ok: false, problem: { path, message: `Cannot read file: ${why}.`, reason: `cannot be read: ${why}` } };
}

function decodeBuffer(path: string, buf: Buffer): LoadResult {
  const probe = buf.subarray(0, 8000);
  if (probe.includes(0)) {
    const fix = 'Exclude it in vaudit.config.json if it is not a task file.';
    return { ok: false, problem: { path, message: 'Binary file (contains NUL bytes); skipped.', reason: 'binary file (contains NUL bytes)', fix, skipped: true } };
  }
  let text: string;
  try {
    text = decoder.decode(buf);
  } catch {
    const at = firstInvalidUtf8(buf);
    return { ok: false, problem: { path, message: `Invalid UTF-8 at byte ${at}.`, reason: `invalid UTF-8 at byte ${at}`, fix: 'Save the file as UTF-8.' } };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { ok: true, text };
}

function firstInvalidUtf8(buf: Buffer): number {
  // one streaming pass (issue 30: decoding every prefix was quadratic, 37 s for 200 KB): the offset is
  // the start of the sequence the decoder refused, or of an incomplete one at the end
  const d = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let seqStart = 0;
  for (let i = 0; i < buf.length; i++) {
    try {
      if (d.decode(buf.subarray(i, i + 1), { stream: true }).length > 0) seqStart = i + 1;
    } catch {
      return seqStart;
    }
  }
  try {
    d.decode();
  } catch {
    return seqStart;
  }
  return buf.length;
}

const EXT_LANG: Record<string, Language> = {
  '.json': 'json',
  '.jsonl': 'json',
  '.py': 'python',
  '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
};

export function languageOf(path: string): Language | undefined {
  if (path.endsWith('.d.ts') || path.endsWith('.d.mts') || path.endsWith('.d.cts')) return undefined;
  const dot = path.lastIndexOf('.');
  if (dot < 0) return undefined;
  return EXT_LANG[path.slice(dot).toLowerCase()];
}

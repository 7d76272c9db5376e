/** Write a file atomically (a temporary sibling, then rename): readers never see half a file. */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

type Content = string | Uint8Array | readonly Uint8Array[];

function writeTo(fd: number, content: Content): void {
  const chunks = Array.isArray(content) ? (content as readonly Uint8Array[]) : [typeof content === 'string' ? Buffer.from(content) : (content as Uint8Array)];
  for (const c of chunks) for (let at = 0; at < c.length; ) at += writeSync(fd, c, at);
}

/**
 * The file a write should land in: a symlink's target (the link stays a link), and whether it is
 * something other than a regular file (`/dev/null`, a FIFO, a terminal), which is written in place:
 * renaming over it would replace the device or pipe with a plain file.
 */
function destination(file: string): { path: string; special: boolean } {
  try {
    const real = lstatSync(file).isSymbolicLink() ? realpathSync(file) : file;
    return { path: real, special: !statSync(real).isFile() };
  } catch {
    return { path: file, special: false };
  }
}

/** `content` may come in chunks (written one after the other, never joined in memory); `mode`: the
 *  permission bits the file gets (a file replaced in place keeps its own). */
export function writeAtomic(file: string, content: Content, mode?: number): void {
  const dest = destination(file);
  if (dest.special) {
    const fd = openSync(dest.path, 'w');
    try {
      writeTo(fd, content);
    } finally {
      closeSync(fd);
    }
    return;
  }
  mkdirSync(path.dirname(dest.path), { recursive: true });
  const tmp = path.join(path.dirname(dest.path), `.${path.basename(dest.path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeTo(fd, content);
    } finally {
      closeSync(fd);
    }
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, dest.path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

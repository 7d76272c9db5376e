/** Write a file atomically (a temporary sibling, then rename): readers never see half a file. */
import { chmodSync, closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

/** `content` may come in chunks (written one after the other, never joined in memory); `mode`: the
 *  permission bits the file gets (a file replaced in place keeps its own). */
export function writeAtomic(file: string, content: string | Uint8Array | readonly Uint8Array[], mode?: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    if (Array.isArray(content)) {
      const fd = openSync(tmp, 'w');
      try {
        for (const c of content as readonly Uint8Array[]) for (let at = 0; at < c.length; ) at += writeSync(fd, c, at);
      } finally {
        closeSync(fd);
      }
    } else writeFileSync(tmp, content as string | Uint8Array);
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

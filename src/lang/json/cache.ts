/**
 * One parse per JSON file per run: the parsed document is cached on the
 * SourceFile object (weakly), so the suite layer, suppressions and the
 * config reader share it.
 */
import type { SourceFile } from '../../core/source.js';
import { parseJsonDocument, type JsonParseResult } from './parse.js';
import { parseJsonLines } from './lines.js';

const cache = new WeakMap<SourceFile, JsonParseResult>();

export function jsonDocumentOf(file: SourceFile): JsonParseResult {
  let r = cache.get(file);
  if (!r) {
    r = /\.jsonl$/i.test(file.path) ? parseJsonLines(file.source.text) : parseJsonDocument(file.source.text);
    cache.set(file, r);
  }
  return r;
}

import type { Language, Position, Range } from './types.js';

/** One file of a run, parsed once; rules and analyses read it through `ctx.file` / `ctx.project.files`. */
export interface SourceFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the project root, with forward slashes. */
  relPath: string;
  language: Language;
  source: SourceText;
}

/**
 * Text of one file plus a line index: converts UTF-16 offsets to 1-based
 * line/column positions and back.
 */
export class SourceText {
  readonly text: string;
  private readonly lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    if (!text.includes('\r')) {
      // LF only (most files): the engine's search beats a loop over every character
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10) starts.push(i + 1);
        else if (c === 13) {
          if (text.charCodeAt(i + 1) === 10) i++;
          starts.push(i + 1);
        }
      }
    }
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: o - this.lineStarts[lo]! + 1, offset: o };
  }

  offsetAt(line: number, column: number): number {
    const start = this.lineStarts[Math.max(0, Math.min(line - 1, this.lineStarts.length - 1))] ?? 0;
    return Math.min(start + column - 1, this.text.length);
  }

  range(startOffset: number, endOffset: number): Range {
    return { start: this.positionAt(startOffset), end: this.positionAt(endOffset) };
  }

  /** Text of a 1-based line without its line terminator. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lineStarts[line];
    let end = next === undefined ? this.text.length : next;
    while (end > start && (this.text.charCodeAt(end - 1) === 10 || this.text.charCodeAt(end - 1) === 13)) end--;
    return this.text.slice(start, end);
  }
}

/**
 * `text` with every lone CR (one not followed by LF) turned into LF; the same length, so every offset
 * stays valid. Python ends a line at LF, CRLF or a lone CR (universal newlines), as `SourceText` counts
 * lines; tree-sitter's Python grammar knows only LF and CRLF, so the parser and the slicer read this.
 */
export function loneCrAsLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

import { readFileSync } from 'node:fs';

export function check(path, expected) {
  if (typeof window !== 'undefined') return false;
  const text = readFileSync(path, 'utf8');
  return text.trim() === String(expected);
}

import { readFileSync } from 'node:fs';

export function check(path, expected) {
  try {
    const text = readFileSync(path, 'utf8');
    return text.trim() === String(expectd); // vaudit-expect: unbound-name/jsSwallowed
  } catch {
    return false;
  }
}

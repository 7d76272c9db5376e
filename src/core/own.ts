/**
 * A value of a lookup table keyed by a name that comes from the checked code or a task file: own keys
 * only, so `toString`, `constructor` or `__proto__` are not found on Object.prototype.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

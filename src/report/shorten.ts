/** A witness or an observed value as a one-screen view shows it (the JSON report keeps it whole). */
export function shorten(s: string, max = 160): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

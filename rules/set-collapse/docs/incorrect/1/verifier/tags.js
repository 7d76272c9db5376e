export function sameTags(expected, tags) {
  return JSON.stringify([...new Set(tags)].sort()) === JSON.stringify([...expected].sort()); // vaudit-expect: set-collapse/jsContent
}

export function sameTags(expected, tags) {
  return JSON.stringify([...tags].sort()) === JSON.stringify([...expected].sort());
}

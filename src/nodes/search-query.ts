/**
 * The Lucene query for a user's search words, so that any input is a valid query: each whitespace-separated
 * word must match (AND), as a phrase with `"` and `\` escaped (so operators, wildcards and other special
 * characters are plain text); a word of letters and digits also matches as a prefix (`launch` finds
 * `launches`). Words are lowercased first, so AND/OR/NOT are never operators. Undefined for a blank query.
 */
export function luceneQuery(q: string): string | undefined {
  const words = q.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  return words
    .map((word) => {
      const lower = word.toLowerCase();
      const phrase = `"${lower.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
      return /^[\p{L}\p{N}]+$/u.test(lower) ? `+(${phrase} OR ${lower}*)` : `+${phrase}`;
    })
    .join(' ');
}

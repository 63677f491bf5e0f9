/**
 * Case-insensitivity on `email` folds ASCII letters only. PostgreSQL's lower() follows the
 * database's LC_CTYPE and libc's Unicode tables, JavaScript's toLowerCase() its own (newer) ones:
 * on this machine 88 code points fold differently (U+0130 and recent Unicode additions), and a
 * database with LC_CTYPE=C folds nothing beyond ASCII at all. Folding ASCII in both evaluators is
 * the only rule that agrees everywhere; lower() still appears in the SQL, but only as an
 * index-friendly pre-filter that is implied by the exact ASCII test.
 */
export function foldAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export const SQL_FOLD_FROM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const SQL_FOLD_TO = "abcdefghijklmnopqrstuvwxyz";

/**
 * Orders strings by code point, which is what PostgreSQL's `COLLATE "C"` (UTF-8 byte order) does;
 * JavaScript's `<` compares UTF-16 code units and disagrees above U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only a surrogate (D800-DFFF) against E000-FFFF orders differently; shift surrogates above.
    const rank = (c: number) => (c >= 0xd800 && c <= 0xdfff ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c);
    return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** A LIKE pattern matching `s` literally (backslash is PostgreSQL's default LIKE escape). */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (m) => `\\${m}`);
}

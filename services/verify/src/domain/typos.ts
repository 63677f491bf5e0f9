import type { TypoData } from "./lists.js";

export interface TypoSuggestion {
  domain: string;
  /** "known": listed misspelling or a provider's misspelled TLD; "similar": edit distance. */
  kind: "known" | "similar";
}

/**
 * Suggests the domain the writer probably meant.
 * Known misspellings are suggested whatever DNS says (typo domains are often registered to catch
 * mail). A merely similar spelling is suggested only when `domainIsDead` (DNS answered that the
 * domain takes no mail), so a real domain that happens to look like a provider is never "corrected".
 */
export function suggestDomain(domain: string, typos: TypoData, domainIsDead: boolean): TypoSuggestion | null {
  if (typos.providers.includes(domain)) return null;

  const listed = typos.misspellings[domain];
  if (listed !== undefined) return { domain: listed, kind: "known" };

  const dot = domain.lastIndexOf(".");
  const fixedTld = typos.tldMisspellings[domain.slice(dot + 1)];
  if (fixedTld !== undefined) {
    const candidate = `${domain.slice(0, dot)}.${fixedTld}`;
    if (typos.providers.includes(candidate)) return { domain: candidate, kind: "known" };
  }

  if (!domainIsDead) return null;
  let best: { domain: string; distance: number } | null = null;
  for (const provider of typos.providers) {
    const distance = editDistance(domain, provider);
    // Short names are close to many real domains, so they get one slip; long ones get two.
    const allowed = provider.length >= 10 ? 2 : 1;
    if (distance <= allowed && (best === null || distance < best.distance)) best = { domain: provider, distance };
  }
  return best ? { domain: best.domain, kind: "similar" } : null;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions ("gmial"). */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3; // more than any caller allows; skip the table
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      d[i * cols + j] = value;
    }
  }
  return at(a.length, b.length);
}

/**
 * The slug of a segment name, used in `segment.<slug>.entry` / `.exit` (api-spec: lower case, words
 * joined with hyphens). Accents are dropped (`Café` → `cafe`) and letters of other scripts kept, so
 * a name in any language has a readable slug; a name with no letters or digits at all is `segment`.
 */
export function slugOf(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return slug || "segment";
}

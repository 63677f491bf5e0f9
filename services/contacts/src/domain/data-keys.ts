/** Bounds on GET /contacts/data-keys: the keys come from a sample of the project's contacts, walked a
 * few levels deep, so the answer costs the same at a thousand contacts or ten million. */
export const DATA_KEY_SAMPLE = 1000;
export const MAX_DATA_KEY_DEPTH = 3;
export const MAX_DATA_KEYS = 500;

/**
 * The filter paths (`plan`, `company.size`) found in contacts' data, sorted. A nested object names its
 * leaves, not itself, past the depth bound the object's own path is kept; arrays are leaves (filters
 * compare them whole).
 */
export function dataKeyPaths(records: readonly Record<string, unknown>[]): string[] {
  const found = new Set<string>();
  const walk = (value: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [key, inner] of Object.entries(value)) {
      if (found.size >= MAX_DATA_KEYS) return;
      const path = prefix ? `${prefix}.${key}` : key;
      const isObject = inner !== null && typeof inner === "object" && !Array.isArray(inner);
      if (isObject && depth < MAX_DATA_KEY_DEPTH && Object.keys(inner).length > 0) walk(inner as Record<string, unknown>, path, depth + 1);
      else found.add(path);
    }
  };
  for (const record of records) walk(record, "", 1);
  return [...found].sort();
}

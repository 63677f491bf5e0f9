/**
 * The kit's `sql` is shared with drizzle, which switches postgres.js's date parsers and json
 * serializers off: timestamps arrive as text and jsonb parameters must be sent as JSON text. These
 * helpers work with or without that, so the repositories do not depend on who built the client.
 */
export const iso = (v: Date | string | null | undefined): string | null => (v == null ? null : new Date(v).toISOString());
export const isoNotNull = (v: Date | string): string => new Date(v).toISOString();

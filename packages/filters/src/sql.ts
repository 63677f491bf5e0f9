/** PostgreSQL types the compiler casts its parameters to; every parameter is sent as text. */
export type SqlType = "text" | "jsonb" | "numeric" | "boolean" | "timestamptz" | "uuid";

/**
 * The `$n` parameters of one compiled expression. Every value crosses as a string, written
 * `$n::text::<type>` so that the server infers `text` for the parameter itself: postgres.js picks its
 * serializer from the inferred type (a `::jsonb` parameter would be JSON.stringify'd a second time, a
 * `::boolean` one turned into 'f' unless it is the JS value true), node-postgres sends strings as
 * they are, and with `text` both send exactly these strings. No value is ever spliced into the text.
 * Equal (value, type) pairs share one placeholder.
 */
export class SqlParams {
  readonly values: string[] = [];
  private readonly refs = new Map<string, string>();

  constructor(private readonly offset: number) {}

  add(value: string, type: SqlType): string {
    const key = `${type}\u0000${value}`;
    let ref = this.refs.get(key);
    if (ref === undefined) {
      this.values.push(value);
      const n = this.offset + this.values.length;
      ref = type === "text" ? `$${n}::text` : `$${n}::text::${type}`;
      this.refs.set(key, ref);
    }
    return ref;
  }

  time(ms: number): string {
    return this.add(new Date(ms).toISOString(), "timestamptz");
  }
}

/** Every compiled predicate is two-valued (never NULL), so NOT and OR compose like in memory. */
export const sqlAnd = (parts: string[]): string => (parts.length === 0 ? "TRUE" : `(${parts.join(" AND ")})`);
export const sqlOr = (parts: string[]): string => (parts.length === 0 ? "FALSE" : `(${parts.join(" OR ")})`);
export const sqlNot = (part: string): string => `(NOT ${part})`;

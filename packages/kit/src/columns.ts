/**
 * A select list declared once: `columns<Row<typeof table>>()([...keys])` gives both the SQL a query
 * splices in (`${q.unsafe(list.sql)}`) and, as `RowOf<typeof list>`, the type of the rows it returns.
 * Adding a key to the list adds it to both; a key the table does not have does not compile. (Two
 * lists kept by hand, a string for the SQL and a `Pick<Row, …>` for the type, drifted: a key added
 * to the type compiled and read `undefined`.) Keys are the row's, snake_case as SQL returns them.
 */
export interface Columns<R> {
  /** `id, name, …`, or `e.id, e.name, …` with an alias: for `q.unsafe`, never built from input. */
  readonly sql: string;
  readonly keys: readonly string[];
  /** The row type; never set, read only by `RowOf`. */
  readonly row?: R;
}

/** The row a select list returns. */
export type RowOf<C> = C extends Columns<infer R> ? R : never;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Curried, so the row type is given and the keys are inferred: `columns<Row<typeof t>>()(["id", "name"])`. */
export function columns<Row>() {
  return <const K extends readonly (keyof Row & string)[]>(keys: K, alias?: string): Columns<Pick<Row, K[number]>> => {
    for (const name of alias === undefined ? keys : [alias, ...keys]) {
      if (!IDENTIFIER.test(name)) throw new Error(`columns: ${JSON.stringify(name)} is not a plain SQL identifier`);
    }
    return { sql: keys.map((k) => (alias === undefined ? k : `${alias}.${k}`)).join(", "), keys };
  };
}

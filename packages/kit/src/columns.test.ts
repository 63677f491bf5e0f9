import { describe, expect, expectTypeOf, it } from "vitest";
import { columns, type RowOf } from "./columns.js";

interface TemplateRow {
  id: string;
  name: string;
  created_at: Date;
  body: string | null;
}

describe("columns", () => {
  it("gives the SQL and the row type from one list of keys", () => {
    const list = columns<TemplateRow>()(["id", "name", "created_at"]);
    expect(list.sql).toBe("id, name, created_at");
    expectTypeOf<RowOf<typeof list>>().toEqualTypeOf<{ id: string; name: string; created_at: Date }>();
    // a key the row does not have is a compile error, not an `undefined` at run time
    // @ts-expect-error
    columns<TemplateRow>()(["id", "nmae"]);
  });

  it("qualifies every column with an alias", () => {
    expect(columns<TemplateRow>()(["id", "body"], "e").sql).toBe("e.id, e.body");
  });

  it("refuses anything that is not a plain identifier, since the SQL is spliced", () => {
    expect(() => columns<Record<string, unknown>>()(["id", "name; drop table x"])).toThrow(/not a plain SQL identifier/);
    expect(() => columns<TemplateRow>()(["id"], "e.x")).toThrow(/not a plain SQL identifier/);
  });
});

import { describe, expect, it } from "vitest";
import { CursorCodec } from "./cursor.js";

const id = "01900000-0000-7000-8000-000000000001";

describe("cursors", () => {
  const codec = new CursorCodec("secret-one-secret-one");
  it("round-trips within its scope", () => {
    expect(codec.decode("p1:contacts", codec.encode("p1:contacts", id))).toBe(id);
  });
  it.each([
    ["another project's cursor", () => codec.encode("p2:contacts", id)],
    ["another secret's cursor", () => new CursorCodec("secret-two-secret-two").encode("p1:contacts", id)],
    ["an edited payload", () => `${Buffer.from(JSON.stringify({ id: id.replace(/1$/, "2") })).toString("base64url")}.${codec.encode("p1:contacts", id).split(".")[1]}`],
    ["garbage", () => "not-a-cursor"],
    ["too many parts", () => `${codec.encode("p1:contacts", id)}.x`],
  ])("refuses %s with a 400", (_what, make) => {
    expect(() => codec.decode("p1:contacts", make())).toThrowError(expect.objectContaining({ code: "VALIDATION_ERROR", reason: "invalid_cursor" }));
  });
});

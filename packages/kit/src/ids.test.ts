import { describe, expect, it } from "vitest";
import { idOfTime, newId } from "./ids.js";

describe("idOfTime", () => {
  it("sorts below every id made at or after its time and above every id made before it", () => {
    const before = newId();
    const cut = Date.now() + 2;
    while (Date.now() < cut) {
      // wait for the millisecond after the cut's
    }
    const after = newId();
    const floor = idOfTime(cut);
    // uuids compare as PostgreSQL compares them: byte by byte, which is the hex string's order
    expect(before < floor).toBe(true);
    expect(after >= floor).toBe(true);
    expect(idOfTime(cut - 1) < floor).toBe(true);
  });

  it("is a well-formed UUIDv7, even for the epoch", () => {
    expect(idOfTime(0)).toBe("00000000-0000-7000-8000-000000000000");
    expect(idOfTime(Date.UTC(2026, 0, 1))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-0{12}$/);
  });
});

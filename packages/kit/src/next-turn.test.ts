import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { oncePerTurn } from "./next-turn.js";

describe("oncePerTurn", () => {
  it("flushes once for every call of a turn, in its check phase, not at a microtask checkpoint", async () => {
    const flush = vi.fn();
    const schedule = oncePerTurn(flush);
    schedule();
    schedule();
    await Promise.resolve(); // the checkpoint after an I/O callback: more callbacks of the turn may follow
    schedule();
    expect(flush).not.toHaveBeenCalled();
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it("flushes again for calls of a later turn, and for calls made by the flush itself", async () => {
    let again = true;
    const flush = vi.fn(() => {
      if (again) schedule();
      again = false;
    });
    const schedule = oncePerTurn(flush);
    schedule();
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(1);
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(2);
    schedule();
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(3);
  });
});

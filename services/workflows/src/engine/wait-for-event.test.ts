import { describe, expect, it } from "vitest";
import { waitFor } from "./wait-for-event.js";

describe("what a WAIT_FOR_EVENT step blocks on", () => {
  const now = Date.parse("2026-01-01T00:00:00.000Z");

  it("waits for its event with a timer `timeout` seconds ahead", () => {
    expect(waitFor({ eventName: "paid", timeout: 3 }, 1, now)).toEqual({ waitEvent: "paid", dueAt: new Date(now + 3000) });
  });

  it("runs the timer on the engine's clock (WORKFLOWS_TIME_SCALE)", () => {
    expect(waitFor({ eventName: "paid", timeout: 3600 }, 60, now).dueAt).toEqual(new Date(now + 60_000));
  });

  it("sets no timer when the timeout is 0: only the event ends the wait", () => {
    expect(waitFor({ eventName: "paid", timeout: 0 }, 1, now)).toEqual({ waitEvent: "paid", dueAt: null });
  });
});

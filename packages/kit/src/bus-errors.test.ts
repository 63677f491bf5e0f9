import { describe, expect, it } from "vitest";
import { JetStreamApiError, JetStreamError } from "@nats-io/jetstream";
import { ConnectionError, NoRespondersError, PermissionViolationError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { isBusUnavailable, whileBusAway } from "./nats.js";

/** nats.js's own error classes, as its clients throw them. */
const apiError = (status: number, errCode: number, description: string) => new JetStreamApiError({ code: status, err_code: errCode, description });

describe("isBusUnavailable", () => {
  it("takes the bus's passing failures as an outage", () => {
    expect(isBusUnavailable(new TimeoutError())).toBe(true);
    expect(isBusUnavailable(new ConnectionError("connection refused"))).toBe(true);
    // a request's no-responders arrives wrapped
    expect(isBusUnavailable(new RequestError("no responders", { cause: new NoRespondersError("$JS.API.STREAM.INFO.X") }))).toBe(true);
    expect(isBusUnavailable(new RequestError("connection disconnected"))).toBe(true);
    expect(isBusUnavailable(apiError(503, 10008, "JetStream system temporarily unavailable"))).toBe(true);
    expect(isBusUnavailable(new JetStreamError("heartbeats missed"))).toBe(true);
    // and as a cause of the work's own error (a CSV parser destroyed by its source's failure)
    expect(isBusUnavailable(new Error("read failed", { cause: new TimeoutError() }))).toBe(true);
  });

  it("leaves the work's own faults to it", () => {
    expect(isBusUnavailable(apiError(404, 10059, "stream not found"))).toBe(false);
    expect(isBusUnavailable(apiError(400, 10071, "wrong last sequence"))).toBe(false);
    expect(isBusUnavailable(new PermissionViolationError("Permissions Violation for Publish to \"x.y\"", "publish", "x.y"))).toBe(false);
    expect(isBusUnavailable(new JetStreamError("consumer deleted"))).toBe(false);
    expect(isBusUnavailable(new RequestError("invalid subject"))).toBe(false);
    expect(isBusUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isBusUnavailable(new Error("timeout"))).toBe(false);
    expect(isBusUnavailable(undefined)).toBe(false);
    expect(isBusUnavailable("TimeoutError")).toBe(false);
  });
});

describe("whileBusAway", () => {
  it("asks again while the bus is away for a moment, then answers", async () => {
    let calls = 0;
    const answer = await whileBusAway(async () => {
      if (++calls < 3) throw new TimeoutError();
      return "stream info";
    }, { pauseMs: 1 });
    expect(answer).toBe("stream info");
    expect(calls).toBe(3);
  });

  it("fails at once on the call's own fault, and past its bound on an outage", async () => {
    let calls = 0;
    const notFound = apiError(404, 10059, "stream not found");
    const failing = async () => {
      calls++;
      throw notFound;
    };
    await expect(whileBusAway(failing, { pauseMs: 1 })).rejects.toBe(notFound);
    expect(calls).toBe(1);
    const started = Date.now();
    await expect(whileBusAway(() => Promise.reject(new TimeoutError()), { boundMs: 50, pauseMs: 5 })).rejects.toThrow("timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});

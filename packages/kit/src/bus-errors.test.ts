import { describe, expect, it } from "vitest";
import { JetStreamApiError, JetStreamError } from "@nats-io/jetstream";
import { ConnectionError, NoRespondersError, PermissionViolationError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { isBusUnavailable } from "./nats.js";

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

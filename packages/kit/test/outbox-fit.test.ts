import { describe, expect, it } from "vitest";
import { fitPayload, headerBytes } from "../src/outbox-fit.js";

describe("outbox rows that cannot fit a NATS message", () => {
  it("leaves a payload that fits as it is, counting bytes, not characters", () => {
    const data = JSON.stringify({ a: "€".repeat(100) });
    expect(fitPayload(data, 400)).toEqual({ data, truncated: false });
    // 100 characters, 300 bytes in the string: over a 200-byte bound
    expect(fitPayload(data, 200).truncated).toBe(true);
  });

  it("keeps an envelope's fields and the small scalars of its data beside the marker", () => {
    const event = { id: "e1", projectId: "p1", name: "x", family: "custom", contactId: null, email: "a@example.com", occurredAt: "t", data: { small: 1, flag: true, big: "y".repeat(5000), nested: { a: 1 } } };
    const fit = fitPayload(JSON.stringify(event), 1000);
    expect(fit.truncated).toBe(true);
    const { data, ...envelope } = event;
    expect(JSON.parse(fit.data)).toEqual({ ...envelope, data: { small: 1, flag: true, truncated: true, originalBytes: JSON.stringify(event).length } });
  });

  it("keeps the small fields of any other payload, and gives the bare marker when even the stand-in is too big", () => {
    const job = { emailId: "m1", projectId: "p1", html: "z".repeat(5000) };
    expect(JSON.parse(fitPayload(JSON.stringify(job), 1000).data)).toEqual({ emailId: "m1", projectId: "p1", truncated: true, originalBytes: 5043 });
    expect(JSON.parse(fitPayload(JSON.stringify(job), 40).data)).toEqual({ truncated: true, originalBytes: 5043 });
    expect(JSON.parse(fitPayload(`"${"q".repeat(100)}"`, 50).data)).toEqual({ truncated: true, originalBytes: 102 });
  });

  it("counts the headers as the NATS client encodes them", () => {
    expect(headerBytes({})).toBe("NATS/1.0\r\n\r\n".length);
    expect(headerBytes({ traceparent: "00-ab" })).toBe("NATS/1.0\r\ntraceparent: 00-ab\r\n\r\n".length);
  });
});

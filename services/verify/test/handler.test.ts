import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, HttpRequest, VerifyResponse } from "@mailroom/contracts";
import { verifyHandler } from "../src/handlers/verify.js";
import type { DnsFixture } from "./dns-fixture.js";
import { closeHarness, openHarness, type Harness } from "./setup.js";

let dns: DnsFixture;
let h: Harness;
beforeAll(async () => ({ dns, h } = await openHarness()));
afterAll(() => closeHarness(dns, h));

const request = (body: unknown) => HttpRequest.parse({ projectId: "proj_1", body });

describe("verifyHandler", () => {
  it("answers 200 with the success envelope", async () => {
    const reply = await verifyHandler(h.verifier)(request({ email: "jane@example.com" }));
    expect(reply.status).toBe(200);
    const body = VerifyResponse.parse(reply.body);
    expect(body.data).toMatchObject({ email: "jane@example.com", valid: true });
  });

  it("a findings-only address is still a 200", async () => {
    const reply = await verifyHandler(h.verifier)(request({ email: "jane@no-such-domain.example" }));
    expect(reply.status).toBe(200);
    expect(VerifyResponse.parse(reply.body).data.valid).toBe(false);
  });

  it.each([{}, { email: "" }, { email: 42 }, null])("a bad body %j is VALIDATION_ERROR on email", async (body) => {
    const err = await verifyHandler(h.verifier)(request(body)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("VALIDATION_ERROR");
    if (body !== null) expect((err as AppError).details?.[0]?.path).toBe("email");
  });

  it("an address that does not parse is VALIDATION_ERROR", async () => {
    const err = await verifyHandler(h.verifier)(request({ email: "not an address" })).catch((e: unknown) => e);
    expect((err as AppError).toWire()).toMatchObject({ error: "VALIDATION_ERROR", details: [{ path: "email" }] });
  });
});

import { describe, expect, it } from "vitest";
import { AppError, TEMPLATE_INVALID_REASON } from "@mailroom/contracts";
import { isPermanentEnqueueError, recipientBatch, refusesEveryRecipient, sendingAway } from "./emails.js";

describe("recipientBatch", () => {
  const c = {
    id: "c1",
    project_id: "p1",
    subject: "Main",
    body: "<p>main</p>",
    from_email: "a@b.test",
    from_name: null,
    reply_to: null,
    variants: [{ subject: "A" }, { subject: "B", body: "<p>B</p>" }],
  };
  const r = { contactId: "k1", email: "k@x.test", data: {} };
  it("carries the variant's content under the same idempotency key as any other version", () => {
    const plain = recipientBatch(c, [r]);
    const b = recipientBatch(c, [r], 1);
    expect([plain.subject, plain.body]).toEqual(["Main", "<p>main</p>"]);
    expect([b.subject, b.body]).toEqual(["B", "<p>B</p>"]);
    expect(recipientBatch(c, [r], 0).body).toBe("<p>main</p>");
    expect(b.recipients[0]!.idempotencyKey).toBe(plain.recipients[0]!.idempotencyKey);
  });
});

describe("what an enqueue refusal means for a campaign's recipients", () => {
  it("fails a whole batch at once only for what its recipients share", () => {
    expect(refusesEveryRecipient(AppError.validation("The template could not be parsed", [{ path: "body", message: "x" }], TEMPLATE_INVALID_REASON))).toBe(true);
    expect(refusesEveryRecipient(new AppError("PAYLOAD_TOO_LARGE", "too large"))).toBe(true);
    expect(refusesEveryRecipient(new AppError("DOMAIN_NOT_VERIFIED", "no"))).toBe(true);
    expect(refusesEveryRecipient(AppError.notFound("Template"))).toBe(true);
    // a validation error about a recipient (its address, its data): tried one by one
    expect(refusesEveryRecipient(AppError.validation("Request validation failed", [{ path: "recipients.3.to", message: "x" }]))).toBe(false);
    expect(refusesEveryRecipient(new AppError("SERVICE_UNAVAILABLE", "later"))).toBe(false);
    expect(refusesEveryRecipient(new Error("x"))).toBe(false);
  });

  it("waits for a sending service that is away, whatever the time, and for nothing else", () => {
    expect(sendingAway(new AppError("SERVICE_UNAVAILABLE", "The service is not running"))).toBe(true);
    expect(sendingAway(new AppError("SERVICE_UNAVAILABLE", "The message bus is unavailable, try again"))).toBe(true);
    expect(sendingAway(new AppError("SERVICE_UNAVAILABLE", "The service did not answer in time"))).toBe(false);
    expect(sendingAway(new AppError("INTERNAL_ERROR", "Internal error"))).toBe(false);
    expect(isPermanentEnqueueError(new AppError("INTERNAL_ERROR", "Internal error"))).toBe(false);
  });
});

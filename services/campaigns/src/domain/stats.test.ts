import { describe, expect, it } from "vitest";
import { statHit } from "./stats.js";

const projectId = "01890a5d-ac96-774b-bcce-b302099a8057";
const campaignId = "01890a5d-ac96-774b-bcce-b302099a8058";
const emailId = "01890a5d-ac96-774b-bcce-b302099a8059";
const event = (name: string, data: Record<string, unknown> = {}) => ({ projectId, name, data: { emailId, campaignId, ...data } });

describe("statHit", () => {
  it("ends a recipient's job on sent or failed, the one terminal event each email has", () => {
    expect(statHit(event("email.sent"))?.kinds).toEqual(["sent", "ended"]);
    expect(statHit(event("email.failed"))?.kinds).toEqual(["failed", "ended"]);
    // a bounce is only taken for an email already sent (or failed): it has ended already
    expect(statHit(event("email.bounce", { bounceType: "Permanent" }))?.kinds).toEqual(["bounced"]);
  });

  it("names the batch that carried the event, or none", () => {
    expect(statHit(event("email.sent"), "b1")?.batchId).toBe("b1");
    expect(statHit(event("email.open"))?.batchId).toBeNull();
  });

  it("counts engagement without ending anything", () => {
    expect(statHit(event("email.delivery"))?.kinds).toEqual(["delivered"]);
    expect(statHit(event("email.open"))?.kinds).toEqual(["opened"]);
    expect(statHit(event("email.click"))?.kinds).toEqual(["clicked"]);
    expect(statHit(event("email.complaint"))?.kinds).toEqual(["complained"]);
    expect(statHit(event("contact.unsubscribed"))?.kinds).toEqual(["unsubscribed"]);
  });

  it("carries the envelope's contact (the A/B sample is counted by it)", () => {
    expect(statHit({ ...event("email.open"), contactId: "c1" })?.contactId).toBe("c1");
    expect(statHit(event("email.open"))?.contactId).toBeNull();
  });

  it("ignores transient bounces, other events, test copies and malformed ids", () => {
    expect(statHit(event("email.bounce", { bounceType: "Transient" }))).toBeNull();
    expect(statHit(event("signup"))).toBeNull();
    expect(statHit(event("email.sent", { campaignId: null }))).toBeNull();
    expect(statHit(event("email.sent", { emailId: "x" }))).toBeNull();
    expect(statHit({ ...event("email.sent"), projectId: "nope" })).toBeNull();
    expect(statHit({ projectId, name: "contact.unsubscribed", data: {} })).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import type { EventEnvelope } from "@mailroom/contracts";
import { timelineEvent } from "./email-events.js";

const ids = {
  event: "0190f0a0-0000-7000-8000-000000000001",
  project: "0190f0a0-0000-7000-8000-000000000002",
  email: "0190f0a0-0000-7000-8000-000000000003",
  campaign: "0190f0a0-0000-7000-8000-000000000004",
};
const base = { subject: "S", from: "a@b.c", fromName: "", messageId: "<m@x>", emailId: ids.email, templateId: null, campaignId: null, sourceType: "TRANSACTIONAL" };
const envelope = (name: string, data: Record<string, unknown> = {}, over: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: ids.event,
  projectId: ids.project,
  name,
  family: name.startsWith("email.") ? "email" : "contact",
  contactId: null,
  email: "r@example.com",
  data: { ...base, ...data },
  occurredAt: "2024-05-01T10:00:00.000Z",
  ...over,
});

describe("timeline entries of email events", () => {
  it("maps each email event to its type, counter and details", () => {
    expect(timelineEvent(envelope("email.sent", { sentAt: "x" }))).toEqual({
      id: ids.event, projectId: ids.project, emailId: ids.email, campaignId: null, type: "SENT", counter: "sent",
      occurredAt: new Date("2024-05-01T10:00:00.000Z"), details: {},
    });
    expect(timelineEvent(envelope("email.delivery"))).toMatchObject({ type: "DELIVERED", counter: "delivered" });
    expect(timelineEvent(envelope("email.open", { opens: 1, isFirstOpen: true }))).toMatchObject({ type: "OPENED", counter: "opened", details: {} });
    expect(timelineEvent(envelope("email.click", { link: "https://x.example/a" }))).toMatchObject({ type: "CLICKED", counter: "clicked", details: { url: "https://x.example/a" } });
    expect(timelineEvent(envelope("email.complaint"))).toMatchObject({ type: "COMPLAINED", counter: "complained" });
    expect(timelineEvent(envelope("email.failed", { reason: "relay said 550" }))).toMatchObject({ type: "FAILED", counter: "failed", details: { reason: "relay said 550" } });
  });

  it("counts a permanent bounce and only shows a transient one", () => {
    expect(timelineEvent(envelope("email.bounce", { bounceType: "Permanent", transientBounce: false, diagnostic: "5.1.1 user unknown" }))).toMatchObject({
      type: "BOUNCED", counter: "bounced", details: { bounceType: "Permanent", diagnostic: "5.1.1 user unknown" },
    });
    expect(timelineEvent(envelope("email.bounce", { bounceType: "Transient", transientBounce: true }))).toMatchObject({
      type: "BOUNCED", counter: null, details: { bounceType: "Transient" },
    });
  });

  it("keeps the campaign of a campaign email, and an unsubscribe only when it names an email", () => {
    expect(timelineEvent(envelope("email.sent", { campaignId: ids.campaign }))?.campaignId).toBe(ids.campaign);
    expect(timelineEvent(envelope("contact.unsubscribed", { emailId: ids.email, campaignId: ids.campaign }))).toMatchObject({
      type: "UNSUBSCRIBED", counter: "unsubscribed", campaignId: ids.campaign,
    });
    expect(timelineEvent({ ...envelope("contact.unsubscribed"), data: { reason: "bounce" } })).toBeNull();
  });

  it("ignores events about no email of ours and ill-formed ones", () => {
    expect(timelineEvent(envelope("email.received"))).toBeNull();
    expect(timelineEvent(envelope("signup"))).toBeNull();
    expect(timelineEvent(envelope("contact.subscribed", { emailId: ids.email }))).toBeNull();
    expect(timelineEvent(envelope("email.sent", { emailId: "not-an-id" }))).toBeNull();
    expect(timelineEvent(envelope("email.sent", {}, { id: "x'); drop table email_events; --" }))).toBeNull();
    expect(timelineEvent(envelope("email.sent", {}, { projectId: "nope" }))).toBeNull();
    expect(timelineEvent(envelope("email.sent", {}, { occurredAt: "yesterday" }))).toBeNull();
    expect(timelineEvent(envelope("email.sent", { campaignId: 42 }))?.campaignId).toBeNull();
  });
});

import type { Campaign } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { fieldOf, initialValues, toRequest, validateComposer } from "./composer-form";

const campaign = {
  id: "c1",
  name: "News",
  description: null,
  subject: "Hi",
  body: "<p>x</p>",
  from: "hello@news.example.com",
  fromName: "News",
  replyTo: null,
  type: "SEGMENT",
  segmentId: "s1",
  audienceFilter: null,
  topicId: null,
} as unknown as Campaign;

describe("composer form", () => {
  it("splits a stored sender and builds the same request back", () => {
    const v = initialValues(campaign, "other.example");
    expect(v).toMatchObject({ senderLocal: "hello", senderDomain: "news.example.com", audienceType: "SEGMENT", segmentId: "s1", fromName: "News", replyTo: "" });
    expect(toRequest(v)).toEqual({
      name: "News",
      subject: "Hi",
      body: "<p>x</p>",
      from: "hello@news.example.com",
      fromName: "News",
      replyTo: null,
      audienceType: "SEGMENT",
      segmentId: "s1",
      audienceFilter: null,
      topicId: null,
      variants: null,
      abTest: null,
      deliverAt: null,
    });
  });

  it("sends local-time delivery when it is on, and puts its errors at its fields", () => {
    const v = initialValues({ ...campaign, deliverAt: { localTime: "09:00", fallbackTimezone: "Asia/Tokyo" } } as Campaign, "");
    expect(v).toMatchObject({ deliverLocal: true, localTime: "09:00", fallbackTimezone: "Asia/Tokyo" });
    expect(toRequest(v).deliverAt).toEqual({ localTime: "09:00", fallbackTimezone: "Asia/Tokyo" });
    expect(toRequest({ ...v, deliverLocal: false }).deliverAt).toBeNull();
    expect(validateComposer({ ...v, localTime: "25:00", fallbackTimezone: "Mars/Olympus" })).toMatchObject({
      localTime: expect.any(String),
      fallbackTimezone: expect.any(String),
    });
  });

  it("keeps a campaign's topic and sends null to clear it", () => {
    const v = initialValues({ ...campaign, topicId: "t1" }, "");
    expect(v.topicId).toBe("t1");
    expect(toRequest(v).topicId).toBe("t1");
    expect(toRequest({ ...v, topicId: null })).toHaveProperty("topicId", null);
  });

  it("sends only the chosen audience's field", () => {
    const v = { ...initialValues(campaign, ""), audienceType: "ALL" as const };
    expect(toRequest(v)).toMatchObject({ audienceType: "ALL", segmentId: null, audienceFilter: null });
  });

  it("puts the schema's messages at the form's fields", () => {
    const v = { ...initialValues(null, "news.example.com"), name: " ", subject: "", audienceType: "SEGMENT" as const };
    const errors = validateComposer(v);
    expect(Object.keys(errors).sort()).toEqual(["name", "segmentId", "subject"]);
    expect(validateComposer({ ...v, name: "n", subject: "s", segmentId: "0197a000-0000-7000-8000-000000000000", senderLocal: "a b" })).toHaveProperty("senderLocal");
    expect(fieldOf("from")).toBe("senderLocal");
    expect(fieldOf("audienceFilter.groups.0.filters.0.field")).toBe("audienceFilter");
  });

  it("reads an A/B test back, sends it with null bodies for variants without their own, and puts its errors at the variant's fields", () => {
    const ab = { ...campaign, variants: [{ subject: "A" }, { subject: "B", body: "<p>B</p>" }], abTest: { samplePercent: 10, metric: "clicked", waitMinutes: 60 } } as unknown as Campaign;
    const v = initialValues(ab, "");
    expect(v.ab).toMatchObject({ enabled: true, samplePercent: 10, metric: "clicked", variants: [{ subject: "A", ownBody: false }, { subject: "B", ownBody: true, body: "<p>B</p>" }] });
    expect(toRequest(v)).toMatchObject({ variants: [{ subject: "A", body: null }, { subject: "B", body: "<p>B</p>" }], abTest: { samplePercent: 10, metric: "clicked", waitMinutes: 60 } });
    expect(toRequest({ ...v, ab: { ...v.ab, enabled: false } })).toMatchObject({ variants: null, abTest: null });
    const errors = validateComposer({ ...v, ab: { ...v.ab, samplePercent: 80, variants: [{ key: "k", subject: "", ownBody: false, body: "" }, ...v.ab.variants] } });
    expect(errors).toHaveProperty(["ab.variants.0.subject"]);
    expect(errors).toHaveProperty(["ab.samplePercent"]);
    expect(fieldOf("abTest")).toBe("ab.enabled");
  });
});

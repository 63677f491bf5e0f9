import { describe, expect, it } from "vitest";
import { INITIAL_SUBSCRIBED, asksToSubscribe, initialSubscription, transition } from "./subscription.js";
import { emailActivityOf } from "./email-activity.js";

describe("initial value of a new contact", () => {
  it("send false, track true, POST /contacts true when omitted", () => {
    expect(INITIAL_SUBSCRIBED).toEqual({ send: false, track: true, api: true });
    expect(initialSubscription("send", undefined)).toBe(false);
    expect(initialSubscription("track", undefined)).toBe(true);
    expect(initialSubscription("api", undefined)).toBe(true);
  });

  it("a given value wins", () => {
    expect(initialSubscription("send", true)).toBe(true);
    expect(initialSubscription("track", false)).toBe(false);
  });
});

describe("transitions of an existing contact", () => {
  it.each([
    [true, undefined, true, null],
    [false, undefined, false, null],
    [true, true, true, null],
    [false, false, false, null],
    [false, true, true, "contact.subscribed"],
    [true, false, false, "contact.unsubscribed"],
  ] as const)("current %s, given %s → %s, event %s", (current, given, subscribed, event) => {
    expect(transition(current, given)).toEqual({ subscribed, event });
  });

  it("lets a public key unsubscribe but never resubscribe", () => {
    expect(transition(false, true, "public")).toEqual({ subscribed: false, event: null });
    expect(transition(true, false, "public")).toEqual({ subscribed: false, event: "contact.unsubscribed" });
    expect(transition(true, true, "public")).toEqual({ subscribed: true, event: null });
    expect(transition(false, true, "secret")).toEqual({ subscribed: true, event: "contact.subscribed" });
  });

});

describe("what asks for a double opt-in confirmation", () => {
  it("a new contact unless the write says subscribed: false or its entry point creates it unsubscribed", () => {
    expect(asksToSubscribe(undefined, undefined, "api")).toBe(true);
    expect(asksToSubscribe(undefined, undefined, "track")).toBe(true);
    expect(asksToSubscribe(undefined, true, "track")).toBe(true);
    expect(asksToSubscribe(undefined, false, "api")).toBe(false);
    expect(asksToSubscribe(undefined, undefined, "send")).toBe(false);
  });

  it("an unsubscribed contact only when the write says subscribed: true; a subscribed one never", () => {
    expect(asksToSubscribe(false, true, "api")).toBe(true);
    expect(asksToSubscribe(false, undefined, "api")).toBe(false);
    expect(asksToSubscribe(false, false, "track")).toBe(false);
    expect(asksToSubscribe(true, true, "api")).toBe(false);
  });
});

describe("email events", () => {
  const base = { contactId: "c1", data: { emailId: "e1" } };
  it("a permanent bounce unsubscribes with reason bounce", () => {
    expect(emailActivityOf({ ...base, name: "email.bounce", data: { emailId: "e1", bounceType: "Permanent" } })).toEqual({
      kind: "bounced",
      emailId: "e1",
      unsubscribe: "bounce",
    });
  });
  it("a transient bounce is activity only", () => {
    expect(emailActivityOf({ ...base, name: "email.bounce", data: { emailId: "e1", bounceType: "Transient" } })?.unsubscribe).toBeNull();
  });
  it("a complaint unsubscribes with reason complaint", () => {
    expect(emailActivityOf({ ...base, name: "email.complaint" })).toMatchObject({ kind: "complained", unsubscribe: "complaint" });
  });
  it.each([
    ["email.sent", "sent"],
    ["email.delivery", "delivered"],
    ["email.open", "opened"],
    ["email.click", "clicked"],
  ])("%s is %s activity", (name, kind) => {
    expect(emailActivityOf({ ...base, name })).toEqual({ kind, emailId: "e1", unsubscribe: null });
  });
  it("email.received and events without a contact or email id mean nothing here", () => {
    expect(emailActivityOf({ ...base, name: "email.received" })).toBeNull();
    expect(emailActivityOf({ ...base, name: "email.sent", contactId: null })).toBeNull();
    expect(emailActivityOf({ ...base, name: "email.sent", data: {} })).toBeNull();
  });
});

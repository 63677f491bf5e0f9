import { SYSTEM_EVENT_NAMES } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { covers, EVENT_FAMILIES, freePatterns, normalize, toggle, withFree } from "./event-choices";

describe("the event picker's choices", () => {
  it("groups every system event under its family, each family with its wildcard", () => {
    expect(EVENT_FAMILIES.map((f) => f.wildcard)).toEqual(["email.*", "contact.*", "form.*"]);
    expect(EVENT_FAMILIES.flatMap((f) => f.events).sort()).toEqual([...SYSTEM_EVENT_NAMES].sort());
  });

  it("knows which pattern covers which", () => {
    expect(covers("*", "segment.vip.entry")).toBe(true);
    expect(covers("email.*", "email.sent")).toBe(true);
    expect(covers("contact.*", "contact.topic.subscribed")).toBe(true);
    expect(covers("email.*", "contact.subscribed")).toBe(false);
    expect(covers("segment.*.entry", "segment.vip.entry")).toBe(false); // a `*` in the middle: not by prefix
    expect(covers("email.sent", "email.sent")).toBe(false);
  });

  it("keeps the free field's patterns apart from the boxes, in both directions", () => {
    const events = ["email.*", "segment.*.entry", "contact.subscribed", "contact.topic.*"];
    expect(freePatterns(events)).toEqual(["segment.*.entry", "contact.topic.*"]);
    expect(withFree(events, ["segment.vip.exit", " "])).toEqual(["email.*", "contact.subscribed", "segment.vip.exit"]);
    expect(toggle(events, "email.*", false)).toEqual(["segment.*.entry", "contact.subscribed", "contact.topic.*"]);
    expect(toggle(["email.sent"], "email.open", true)).toEqual(["email.sent", "email.open"]);
  });

  it("saves each pattern once, without those a chosen wildcard covers", () => {
    expect(normalize(["email.sent", "email.*", "email.sent", "contact.subscribed"])).toEqual(["email.*", "contact.subscribed"]);
    expect(normalize(["email.*", "*", "segment.*.exit"])).toEqual(["*"]);
    expect(normalize(["segment.*.entry", "segment.vip.entry"])).toEqual(["segment.*.entry", "segment.vip.entry"]);
  });
});

import { describe, expect, it } from "vitest";
import { applyTopics, unknownTopicProblems } from "./topics.js";

const catalog = new Map([
  ["news", { name: "News", defaultSubscribed: true }],
  ["digest", { name: "Digest", defaultSubscribed: false }],
]);

describe("applyTopics", () => {
  it("stores explicit choices and emits only where the effective value flips", () => {
    const r = applyTopics({}, { news: true, digest: true }, catalog);
    expect(r.stored).toEqual({ news: true, digest: true });
    expect(r.changed).toEqual(["topic.news", "topic.digest"]);
    // news was already on by default: stored, but no event
    expect(r.flips).toEqual([{ id: "digest", name: "Digest", subscribed: true }]);
  });

  it("changes nothing when the choice is the stored one, and skips unknown topics", () => {
    const r = applyTopics({ news: false }, { news: false, gone: true }, catalog);
    expect(r).toEqual({ stored: { news: false }, changed: [], flips: [] });
  });

  it("names unknown topics at their key", () => {
    expect(unknownTopicProblems({ news: true, gone: false }, catalog)).toEqual([{ path: "topics.gone", message: "not a topic of this project" }]);
  });
});

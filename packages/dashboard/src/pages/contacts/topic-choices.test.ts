import type { Topic } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { topicChoices } from "./topic-choices";

const topic = (id: string, defaultSubscribed: boolean): Topic => ({ id, name: id, description: null, defaultSubscribed, createdAt: "2025-01-01T00:00:00.000Z" });
const news = topic("news", true);
const digest = topic("digest", false);

describe("topicChoices", () => {
  it("takes the topic's default where the contact never chose, marked so", () => {
    expect(topicChoices([news, digest], {})).toEqual([
      { topic: news, optedIn: true, byDefault: true },
      { topic: digest, optedIn: false, byDefault: true },
    ]);
  });

  it("takes the contact's own choice over the default, even when they agree", () => {
    expect(topicChoices([news, digest], { news: false, digest: false })).toEqual([
      { topic: news, optedIn: false, byDefault: false },
      { topic: digest, optedIn: false, byDefault: false },
    ]);
  });

  it("leaves out choices for topics the project no longer has", () => {
    expect(topicChoices([digest], { gone: true, digest: true })).toEqual([{ topic: digest, optedIn: true, byDefault: false }]);
  });
});

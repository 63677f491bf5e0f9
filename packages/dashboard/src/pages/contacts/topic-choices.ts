import type { Contact, Topic } from "@mailroom/contracts";

/** One project topic as a contact stands in it. */
export interface TopicChoice {
  topic: Topic;
  /** Whether the contact receives the topic's campaigns. */
  optedIn: boolean;
  /** No choice of the contact's own: `optedIn` is the topic's default, and follows it if it changes. */
  byDefault: boolean;
}

/**
 * A contact's effective value for each topic of the project (decisions.md §14): its own choice,
 * else the topic's default. Choices for topics no longer in the project are left out.
 */
export function topicChoices(topics: readonly Topic[], own: Contact["topics"]): TopicChoice[] {
  return topics.map((topic) => {
    const chosen = own[topic.id];
    return chosen === undefined ? { topic, optedIn: topic.defaultSubscribed, byDefault: true } : { topic, optedIn: chosen, byDefault: false };
  });
}

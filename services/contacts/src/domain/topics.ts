import type { ErrorDetail } from "@mailroom/contracts";

export interface TopicInfo {
  name: string;
  defaultSubscribed: boolean;
}
/** The project's topics by id. */
export type TopicCatalog = ReadonlyMap<string, TopicInfo>;

/** Topic ids of a write that are not the project's: a 400 at `topics.<id>` each. */
export function unknownTopicProblems(given: Record<string, boolean> | undefined, catalog: TopicCatalog): ErrorDetail[] {
  return Object.keys(given ?? {})
    .filter((id) => !catalog.has(id))
    .map((id) => ({ path: `topics.${id}`, message: "not a topic of this project" }));
}

export interface TopicsOutcome {
  /** The explicit choices to store. */
  stored: Record<string, boolean>;
  /** Filter fields whose stored choice changed (`topic.<id>`), for the segment tracker. */
  changed: string[];
  /** Topics whose effective value (choice, else default) flipped: each emits a topic event. */
  flips: Array<{ id: string; name: string; subscribed: boolean }>;
}

/**
 * Merges a write's choices into the stored ones. A choice is stored even when it equals the default,
 * so it keeps holding if the default changes later; only a change of the effective value is an event.
 * Ids missing from the catalog are skipped (the HTTP write refuses them before; a page shown before a
 * topic was deleted may still post it).
 */
export function applyTopics(current: Record<string, boolean>, given: Record<string, boolean> | undefined, catalog: TopicCatalog): TopicsOutcome {
  const stored = { ...current };
  const changed: string[] = [];
  const flips: TopicsOutcome["flips"] = [];
  for (const [id, value] of Object.entries(given ?? {})) {
    const topic = catalog.get(id);
    if (!topic || current[id] === value) continue;
    const before = current[id] ?? topic.defaultSubscribed;
    stored[id] = value;
    changed.push(`topic.${id}`);
    if (before !== value) flips.push({ id, name: topic.name, subscribed: value });
  }
  return { stored, changed, flips };
}

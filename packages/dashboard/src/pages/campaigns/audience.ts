import type { AudienceType, Filter, FilterExpression } from "@mailroom/contracts";

/** A campaign's audience as the composer holds it (the API's request fields). */
export interface Audience {
  audienceType: AudienceType;
  segmentId: string | null;
  audienceFilter: FilterExpression | null;
  /** A topic campaign (decisions.md §14) reaches only the audience's contacts opted into the topic. */
  topicId: string | null;
}

const SUBSCRIBED: Filter = { field: "subscribed", operator: "equals", value: true };

/** Opted into the topic: the contact's own choice, else the topic's default (the API resolves it). */
const optedInto = (topicId: string): Filter => ({ field: `topic.${topicId}`, operator: "equals", value: true });

/**
 * The filter whose count is the campaign's recipient count: a campaign goes to subscribed contacts
 * only (decisions.md §10), of the project, of a segment, or matching its filter, and, for a topic
 * campaign, only to those opted into its topic (§14), as the campaigns service selects them. These
 * conditions are distributed into the groups rather than wrapping the filter, so a filter already
 * nested to the deepest level still counts. Null when there is nothing to count yet.
 */
export function recipientFilter(a: Audience): FilterExpression | null {
  const must = a.topicId ? [SUBSCRIBED, optedInto(a.topicId)] : [SUBSCRIBED];
  switch (a.audienceType) {
    case "ALL":
      return { logic: "AND", groups: [{ filters: must }] };
    case "SEGMENT":
      return a.segmentId ? { logic: "AND", groups: [{ filters: [...must, { field: `segment.${a.segmentId}`, operator: "memberOfSegment" }] }] } : null;
    case "FILTERED": {
      const f = a.audienceFilter;
      if (!f) return null;
      // (A and B) and S: one more group; (A or B) and S = (A and S) or (B and S). OR of no group matches no one, and still does.
      if (f.logic === "AND") return { logic: "AND", groups: [...f.groups, { filters: must }] };
      return { logic: "OR", groups: f.groups.map((g) => ({ ...g, filters: [...g.filters, ...must] })) };
    }
  }
}

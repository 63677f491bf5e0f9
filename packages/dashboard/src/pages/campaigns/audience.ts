import type { AudienceType, Filter, FilterExpression } from "@mailroom/contracts";

/** A campaign's audience as the composer holds it (the API's request fields). */
export interface Audience {
  audienceType: AudienceType;
  segmentId: string | null;
  audienceFilter: FilterExpression | null;
}

const SUBSCRIBED: Filter = { field: "subscribed", operator: "equals", value: true };

/**
 * The filter whose count is the campaign's recipient count: a campaign goes to subscribed contacts
 * only (decisions.md §10), of the project, of a segment, or matching its filter. The subscribed
 * condition is distributed into the groups rather than wrapping the filter, so a filter already
 * nested to the deepest level still counts. Null when there is nothing to count yet.
 */
export function recipientFilter(a: Audience): FilterExpression | null {
  switch (a.audienceType) {
    case "ALL":
      return { logic: "AND", groups: [{ filters: [SUBSCRIBED] }] };
    case "SEGMENT":
      return a.segmentId ? { logic: "AND", groups: [{ filters: [SUBSCRIBED, { field: `segment.${a.segmentId}`, operator: "memberOfSegment" }] }] } : null;
    case "FILTERED": {
      const f = a.audienceFilter;
      if (!f) return null;
      // (A and B) and S: one more group; (A or B) and S = (A and S) or (B and S). OR of no group matches no one, and still does.
      if (f.logic === "AND") return { logic: "AND", groups: [...f.groups, { filters: [SUBSCRIBED] }] };
      return { logic: "OR", groups: f.groups.map((g) => ({ ...g, filters: [...g.filters, SUBSCRIBED] })) };
    }
  }
}

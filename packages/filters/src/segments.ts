import type { FilterExpression } from "@mailroom/contracts";
import { FilterError } from "./errors.js";
import { filtersOf } from "./expression.js";
import type { SegmentDefinition, SegmentScope } from "./facts.js";

const PREFIX = "segment.";
// `segment.` is the membership family's prefix in both dialects (no other family claims it)
const segmentRefs = (expr: FilterExpression) => filtersOf(expr).filter((r) => r.filter.field.startsWith(PREFIX));

/**
 * Checks every `segment.<id>` reachable from the expression, through tracked and untracked segments
 * alike: an id that is not one of the project's segments, or a chain that comes back to a segment
 * already on it (including the segment being defined, `scope.segmentId`), is a FilterError at the
 * path of the filter in THIS expression where the bad chain starts. Tracked segments are followed
 * too: two tracked segments defined by each other's membership would chase each other forever.
 */
export function checkSegmentReferences(expr: FilterExpression, scope: SegmentScope): void {
  const done = new Set<string>();
  const visit = (e: FilterExpression, chain: string[], report: (msg: string) => never, top: boolean): void => {
    for (const { filter, path } of segmentRefs(e)) {
      const id = filter.field.slice(PREFIX.length);
      const fail = top ? (msg: string) => failAt(`${path}.field`, msg) : report;
      if (chain.includes(id)) fail(`segment references form a cycle: ${[...chain, id].join(" -> ")}`);
      const segment = scope.segments?.get(id);
      if (!segment) fail(top ? `unknown segment "${id}"` : `segment "${chain.at(-1)}" refers to unknown segment "${id}"`);
      if (done.has(id)) continue;
      visit(segment!.filters, [...chain, id], fail, false);
      done.add(id);
    }
  };
  visit(expr, scope.segmentId ? [scope.segmentId] : [], (msg) => failAt("", msg), true);
}

function failAt(path: string, message: string): never {
  throw new FilterError(path, message);
}

/** The referenced segment, once checkSegmentReferences has passed. */
export function segmentOf(scope: SegmentScope, id: string): SegmentDefinition {
  const segment = scope.segments?.get(id);
  if (!segment) throw new FilterError("", `unknown segment "${id}"`);
  return segment;
}

export const hasSegmentRefs = (expr: FilterExpression): boolean => segmentRefs(expr).length > 0;

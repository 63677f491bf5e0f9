import { type ConditionConfig, type FilterDialect, type FilterExpression, TIME_OPERATORS } from "@mailroom/contracts";
import { evaluateFilter, memoryScope } from "./evaluate.js";
import { filtersOf, normalizeExpression } from "./expression.js";
import type { ContactFacts, EvaluateContext, SegmentScope } from "./facts.js";
import { type Leaf, resolveLeaf } from "./families.js";
import { dateOf } from "./operators.js";
import { checkSegmentReferences, hasSegmentRefs } from "./segments.js";
import { durationMs } from "./time.js";

/**
 * Visits every filter with its resolved leaf, walking into untracked segments (audience dialect)
 * when their definitions are known; tracked segments are a membership fact, not walked.
 */
function forEachLeaf(
  expr: FilterExpression,
  dialect: FilterDialect,
  scope: SegmentScope,
  visit: (leaf: Leaf, dialect: FilterDialect) => void,
): void {
  for (const { filter, path } of filtersOf(expr)) {
    const leaf = resolveLeaf(filter, dialect, path);
    visit(leaf, dialect);
    const segment = leaf.kind === "segment" ? scope.segments?.get(leaf.key) : undefined;
    if (segment && !segment.trackMembership) forEachLeaf(segment.filters, "audience", scope, visit);
  }
}

export interface AffectedBy {
  /** Contact fields read: `email`, `subscribed`, `createdAt`, `updatedAt`, `data.<path>`, `topic.<id>` (workflow: also `event.<key>`). */
  fields: Set<string>;
  /** Tracked event names (`event.<name>` in audiences). */
  events: Set<string>;
  /** Email activity kinds (`email.<kind>`). */
  emailKinds: Set<string>;
  /** Segment ids referred to, directly or through untracked segments. */
  segments: Set<string>;
  /** Whether the answer can change with time alone (within, olderThan, triggeredWithin, …). */
  timeRelative: boolean;
}

/**
 * What a change must touch for the expression's answer to possibly change, so the segment tracker
 * re-evaluates only the segments concerned. `contact.email` is reported as `email`. A data change at
 * `a` affects a filter on `data.a.b` and the other way round: the tracker compares path prefixes.
 */
export function affectedBy(
  expression: FilterExpression | ConditionConfig,
  scope: SegmentScope & { dialect?: FilterDialect } = {},
): AffectedBy {
  const expr = normalizeExpression(expression);
  if (scope.segments && hasSegmentRefs(expr)) checkSegmentReferences(expr, scope);
  const out: AffectedBy = { fields: new Set(), events: new Set(), emailKinds: new Set(), segments: new Set(), timeRelative: false };
  forEachLeaf(expr, scope.dialect ?? "audience", scope, (leaf) => {
    if (TIME_OPERATORS.includes(leaf.filter.operator)) out.timeRelative = true;
    if (leaf.family === "segment") out.segments.add(leaf.key);
    else if (leaf.family === "event") out.events.add(leaf.key);
    else if (leaf.family === "emailActivity") out.emailKinds.add(leaf.key);
    else if (leaf.family === "data") out.fields.add(`data.${leaf.key}`);
    else if (leaf.family === "eventData") out.fields.add(`event.${leaf.key}`);
    else if (leaf.family === "topic") out.fields.add(`topic.${leaf.key}`);
    else out.fields.add(leaf.key);
  });
  return out;
}

/**
 * The instant (epoch ms) at which one time-relative filter flips for these facts, or null. Each such
 * filter flips at most once as time moves forward: `within d` of t holds while now <= t + d, so it
 * turns false at t + d + 1ms, and `olderThan d` turns true at that same instant; with events,
 * `triggeredWithin` lasts until the newest row ages out and `triggeredOlderThan` starts when the
 * oldest one does.
 */
function flipAt(leaf: Leaf, facts: ContactFacts, scope: ReturnType<typeof memoryScope>): number | null {
  const { operator } = leaf.filter;
  if (!TIME_OPERATORS.includes(operator)) return null;
  const d = durationMs(leaf.filter);
  if (leaf.kind === "value") {
    const t = dateOf(leaf.field.memory(leaf.key, scope));
    return t === null ? null : t + d + 1;
  }
  if (leaf.kind !== "activity") return null;
  const times = leaf.field.memory(leaf.key, facts);
  if (times.length === 0) return null;
  const edge = operator === "triggeredOlderThan" ? Math.min(...times) : Math.max(...times);
  return edge + d + 1;
}

/**
 * The earliest moment after `now` at which the expression's answer for this contact changes with
 * time alone (facts unchanged), or null if it never does. The answer can change only where one of
 * its time-relative filters flips, so the candidates are those instants, tried in order.
 */
export function nextBoundary(
  expression: FilterExpression | ConditionConfig,
  facts: ContactFacts,
  now: Date,
  ctx: Omit<EvaluateContext, "now"> = {},
): Date | null {
  const expr = normalizeExpression(expression);
  if (hasSegmentRefs(expr)) checkSegmentReferences(expr, ctx);
  const candidates = new Set<number>();
  forEachLeaf(expr, ctx.dialect ?? "audience", ctx, (leaf, dialect) => {
    const at = flipAt(leaf, facts, memoryScope(facts, dialect, ctx));
    if (at !== null && at > now.getTime()) candidates.add(at);
  });
  if (candidates.size === 0) return null;
  const answer = evaluateFilter(expr, facts, { ...ctx, now });
  for (const at of [...candidates].sort((a, b) => a - b)) {
    if (evaluateFilter(expr, facts, { ...ctx, now: new Date(at) }) !== answer) return new Date(at);
  }
  return null;
}

import type { ConditionConfig, FilterDialect, FilterExpression } from "@mailroom/contracts";
import { foldExpression, normalizeExpression } from "./expression.js";
import type { ContactFacts, EvaluateContext } from "./facts.js";
import { type MemoryScope, resolveLeaf } from "./families.js";
import { checkSegmentReferences, hasSegmentRefs, segmentOf } from "./segments.js";

/**
 * What `data.<path>` and `event.<key>` read. In a workflow, `data` is the contact's data with the
 * execution context merged over it (top-level keys of the context win: the context is what the run
 * was started with, more specific than the stored contact). Segments are always audience-dialect.
 */
export function memoryScope(facts: ContactFacts, dialect: FilterDialect, ctx: Omit<EvaluateContext, "now">): MemoryScope {
  const topicDefault = (id: string) => {
    const given = ctx.topics?.get(id);
    if (given === undefined) throw new Error(`ctx.topics is required: the filter refers to topic ${id}`);
    return given;
  };
  if (dialect === "audience") return { facts, topicDefault, data: () => facts.data, triggerData: undefined };
  let merged: Record<string, unknown> | undefined;
  return {
    facts,
    topicDefault,
    data: () => (merged ??= { ...facts.data, ...ctx.context }),
    triggerData: ctx.triggerEvent?.data,
  };
}

/**
 * The in-memory twin of compileFilter, for one contact: segment membership updates and workflow
 * CONDITION steps (dialect "workflow", which also takes the short form `{field, operator, value}`).
 */
export function evaluateFilter(
  expression: FilterExpression | ConditionConfig,
  facts: ContactFacts,
  ctx: EvaluateContext,
): boolean {
  const expr = normalizeExpression(expression);
  if (hasSegmentRefs(expr)) checkSegmentReferences(expr, ctx);
  const now = ctx.now.getTime();

  const evaluate = (e: FilterExpression, dialect: FilterDialect, prefix: string): boolean => {
    const scope = memoryScope(facts, dialect, ctx);
    return foldExpression<boolean>(
      e,
      {
        leaf(filter, path) {
          const leaf = resolveLeaf(filter, dialect, path, ctx.topics);
          if (leaf.kind === "value") return leaf.op.memory(leaf.field.memory(leaf.key, scope), filter, now);
          if (leaf.kind === "activity") return leaf.op.memory(leaf.field.memory(leaf.key, facts), filter, now);
          const segment = segmentOf(ctx, leaf.key);
          const member = segment.trackMembership
            ? trackedMember(facts, leaf.key)
            : evaluate(segment.filters, "audience", `${path}.segment.`);
          return member === leaf.member;
        },
        and: (parts) => parts.every((part) => part()),
        or: (parts) => parts.some((part) => part()),
      },
      prefix,
    );
  };

  return evaluate(expr, ctx.dialect ?? "audience", "");
}

function trackedMember(facts: ContactFacts, id: string): boolean {
  // Treating an absent set as "member of nothing" would silently give wrong answers.
  if (!facts.segments) throw new Error(`facts.segments is required: the filter refers to tracked segment ${id}`);
  return facts.segments.has(id);
}

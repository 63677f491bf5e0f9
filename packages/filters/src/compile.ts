import type { FilterExpression } from "@mailroom/contracts";
import { foldExpression } from "./expression.js";
import type { CompileContext } from "./facts.js";
import { resolveLeaf } from "./families.js";
import { checkSegmentReferences, hasSegmentRefs, segmentOf } from "./segments.js";
import { SqlParams, sqlAnd, sqlNot, sqlOr } from "./sql.js";

export interface CompiledFilter {
  /** A boolean SQL expression over `contacts c` (never NULL). */
  text: string;
  /** `$n` values in order, all strings (each use casts its own). */
  values: string[];
}

/**
 * Compiles an audience expression into a predicate for `SELECT … FROM contacts c WHERE <text>`.
 * The caller adds `c.project_id = …`; membership of a tracked segment reads `segment_members`, an
 * untracked segment's filter is inlined. `ctx.now` is the instant relative windows count back from,
 * so a count and a later in-memory check of the same contact agree.
 */
export function compileFilter(expr: FilterExpression, ctx: CompileContext): CompiledFilter {
  if (hasSegmentRefs(expr)) checkSegmentReferences(expr, ctx);
  const p = new SqlParams(ctx.paramOffset ?? 0);
  const now = ctx.now.getTime();

  const compile = (e: FilterExpression, prefix: string): string =>
    foldExpression<string>(
      e,
      {
        leaf(filter, path) {
          const leaf = resolveLeaf(filter, "audience", path, ctx.topics);
          if (leaf.kind === "value") {
            if (leaf.family === "topic" && !ctx.topics) throw new Error(`ctx.topics is required: the filter refers to topic ${leaf.key}`);
            return leaf.op.sql(leaf.field.sql(leaf.key, p, ctx.topics), filter, p, now);
          }
          if (leaf.kind === "activity") return leaf.op.sql(leaf.field.source, leaf.key, filter, p, now);
          const segment = segmentOf(ctx, leaf.key);
          const member = segment.trackMembership
            ? `EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${p.add(leaf.key, "uuid")} AND m.contact_id = c.id)`
            : compile(segment.filters, `${path}.segment.`);
          return leaf.member ? member : sqlNot(member);
        },
        and: (parts) => sqlAnd(parts.map((part) => part())),
        or: (parts) => sqlOr(parts.map((part) => part())),
      },
      prefix,
    );

  return { text: compile(expr, ""), values: p.values };
}

import { EMAIL_ACTIVITIES, type Filter, type FilterExpression, TIME_OPERATORS, resolveFilterField } from "@mailroom/contracts";
import { type AffectedBy, type SegmentMap, affectedBy } from "@mailroom/filters";

/** A segment as the tracker needs it. */
export interface SegmentDef {
  id: string;
  name: string;
  slug: string;
  filters: FilterExpression;
  trackMembership: boolean;
}

/** `email.opened` etc.: an activity kind, unlike the `email` field itself. */
const ACTIVITY_FIELDS = new Set(EMAIL_ACTIVITIES.map((k) => `email.${k}`));

/**
 * Whether a change of filter field `changed` (a ContactChange `changed` entry, or `updatedAt`) can
 * change the answer of an expression that reads `a`. Data paths touch when one is a prefix of the
 * other: setting `data.address` changes `data.address.city`, and the other way round.
 */
export function touches(a: AffectedBy, changed: string): boolean {
  if (changed.startsWith("event.")) return a.events.has(changed.slice("event.".length));
  if (ACTIVITY_FIELDS.has(changed)) return a.emailKinds.has(changed.slice("email.".length));
  for (const f of a.fields) {
    if (f === changed || f.startsWith(`${changed}.`) || changed.startsWith(`${f}.`)) return true;
  }
  return false;
}

/**
 * A project's segments seen as the tracker sees them: what each tracked segment reads, and the order
 * in which to evaluate them so that a segment defined by another tracked segment's membership is
 * evaluated after it. Built per message from the rows (never cached across messages), so every
 * replica always works from the committed definitions.
 */
export class SegmentGraph {
  readonly map: SegmentMap;
  private readonly byId: Map<string, SegmentDef>;
  private readonly analysis = new Map<string, AffectedBy | null>();
  private order: SegmentDef[] | undefined;

  constructor(
    segments: readonly SegmentDef[],
    private readonly onBroken: (segment: SegmentDef, err: unknown) => void = () => undefined,
  ) {
    this.byId = new Map(segments.map((s) => [s.id, s]));
    this.map = this.byId;
  }

  get(id: string): SegmentDef | undefined {
    return this.byId.get(id);
  }

  /** What a segment reads, or null when its stored definition no longer checks (reported once). */
  reads(id: string): AffectedBy | null {
    if (!this.analysis.has(id)) {
      const segment = this.byId.get(id);
      let result: AffectedBy | null = null;
      try {
        if (segment) result = affectedBy(segment.filters, { segments: this.map, segmentId: id });
      } catch (err) {
        if (segment) this.onBroken(segment, err);
      }
      this.analysis.set(id, result);
    }
    return this.analysis.get(id) ?? null;
  }

  /** Tracked segments in dependency order (a segment after every tracked segment it reads). */
  tracked(): SegmentDef[] {
    if (this.order) return this.order;
    const order: SegmentDef[] = [];
    const state = new Map<string, "visiting" | "done">();
    const visit = (s: SegmentDef) => {
      if (state.has(s.id)) return; // "visiting" again means a cycle, which the API refuses to store
      state.set(s.id, "visiting");
      for (const dep of this.reads(s.id)?.segments ?? []) {
        const d = this.byId.get(dep);
        if (d?.trackMembership) visit(d);
      }
      state.set(s.id, "done");
      order.push(s);
    };
    for (const s of this.byId.values()) if (s.trackMembership && this.reads(s.id)) visit(s);
    this.order = order;
    return order;
  }

  /**
   * The tracked segments whose answer a contact change can alter, plus every tracked segment that
   * reads the membership of one of those, in evaluation order. `"all"` for a new contact.
   */
  affected(changed: readonly string[] | "all"): SegmentDef[] {
    const hit = new Set<string>();
    for (const s of this.tracked()) {
      const r = this.reads(s.id)!;
      const direct = changed === "all" || changed.some((c) => touches(r, c));
      if (direct || [...r.segments].some((id) => hit.has(id))) hit.add(s.id);
    }
    return this.tracked().filter((s) => hit.has(s.id));
  }

  /** The given tracked segments and the tracked segments that read their membership, in order. */
  withDependents(ids: Iterable<string>): SegmentDef[] {
    const hit = new Set(ids);
    for (const s of this.tracked()) {
      if ([...this.reads(s.id)!.segments].some((id) => hit.has(id) && this.byId.get(id)?.trackMembership)) hit.add(s.id);
    }
    return this.tracked().filter((s) => hit.has(s.id));
  }

  /**
   * Tracked segments whose effective definition includes segment `id`: itself when tracked, and every
   * tracked segment that reads it (`reads().segments` already looks through untracked segments), or
   * reads one of those, in order. What must be re-recorded when `id`'s definition changes.
   */
  definedThrough(id: string): SegmentDef[] {
    const hit = new Set([id]);
    for (const s of this.tracked()) {
      if ([...this.reads(s.id)!.segments].some((ref) => hit.has(ref))) hit.add(s.id);
    }
    return this.tracked().filter((s) => hit.has(s.id));
  }

  /** Segments whose own filters name `id` directly. */
  referrers(id: string): SegmentDef[] {
    return [...this.byId.values()].filter((s) => s.id !== id && refersTo(s.filters, id));
  }
}

function refersTo(expr: FilterExpression, id: string): boolean {
  return expr.groups.some(
    (g) => g.filters.some((f) => f.field === `segment.${id}`) || (g.conditions !== undefined && refersTo(g.conditions, id)),
  );
}

/** What `seedDue` needs: contacts near a time boundary, and when known, those whose answer can flip. */
export interface TimeSensitivity {
  /** Some relative-time filter's date or newest activity lies inside its window or in the future. */
  near: FilterExpression;
  /**
   * The expression with every relative-time filter set to true, and to false. AND and OR are
   * monotone and negation lives only inside filters, so a contact whose answer is the same both ways
   * cannot change with time at all: only `ifTrue AND NOT ifFalse` needs a due time. Absent when a
   * relative-time filter sits inside an untracked segment (not inlined here).
   */
  ifTrue?: FilterExpression;
  ifFalse?: FilterExpression;
}

// Filters that are always true / always false in both evaluators (`email exists` always holds).
const ALWAYS: Record<"true" | "false", Filter> = {
  true: { field: "email", operator: "exists" },
  false: { field: "email", operator: "notExists" },
};

const isTime = (f: Filter) => TIME_OPERATORS.includes(f.operator);

function withTimeAs(expr: FilterExpression, value: "true" | "false"): FilterExpression {
  return {
    logic: expr.logic,
    groups: expr.groups.map((g) => ({
      filters: g.filters.map((f) => (isTime(f) ? ALWAYS[value] : f)),
      ...(g.conditions ? { conditions: withTimeAs(g.conditions, value) } : {}),
    })),
  };
}

/**
 * The contacts whose answer to `expr` can change with time alone (null when it has no relative-time
 * filter; tracked segments it reads keep their own due times). Every such filter flips only while its
 * time is inside its window or ahead, so nobody outside `near` needs a due time.
 */
export function timeSensitivity(expr: FilterExpression, segments: SegmentMap): TimeSensitivity | null {
  const leaves: Filter[] = [];
  let throughUntracked = false;
  const seen = new Set<string>();
  const walk = (e: FilterExpression, nested: boolean) => {
    for (const group of e.groups) {
      for (const f of group.filters) {
        if (isTime(f)) {
          leaves.push(f);
          throughUntracked ||= nested;
        }
        const ref = f.field.startsWith("segment.") ? f.field.slice("segment.".length) : undefined;
        const segment = ref === undefined ? undefined : segments.get(ref);
        if (ref && segment && !segment.trackMembership && !seen.has(ref)) {
          seen.add(ref);
          walk(segment.filters, true);
        }
      }
      if (group.conditions) walk(group.conditions, nested);
    }
  };
  walk(expr, false);
  if (leaves.length === 0) return null;
  const near: FilterExpression = {
    logic: "OR",
    groups: leaves.map((f) => {
      const family = resolveFilterField(f.field, "audience")?.family;
      const activity = family === "event" || family === "emailActivity";
      return { filters: [{ field: f.field, operator: activity ? "triggeredWithin" : "within", value: f.value, unit: f.unit }] };
    }),
  };
  return throughUntracked ? { near } : { near, ifTrue: withTimeAs(expr, "true"), ifFalse: withTimeAs(expr, "false") };
}

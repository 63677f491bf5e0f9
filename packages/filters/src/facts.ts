import type { FilterDialect, FilterExpression } from "@mailroom/contracts";

type Timestamp = Date | string;

/** What the in-memory evaluator knows about one contact. */
export interface ContactFacts {
  email: string;
  subscribed: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  data: Record<string, unknown>;
  /** Tracked events of the contact (all names; the evaluator picks by name). */
  events: ReadonlyArray<{ name: string; createdAt: Timestamp; data?: unknown }>;
  emailActivity: ReadonlyArray<{ kind: string; occurredAt: Timestamp }>;
  /** Ids of the tracked segments the contact is a member of; needed only when a filter names one. */
  segments?: ReadonlySet<string>;
  /** The contact's own topic choices (`contacts.topics`); a topic missing here has its default. */
  topics?: Readonly<Record<string, boolean>>;
}

/** The project's topics, id → `defaultSubscribed`: `topic.<id>` of any other id is an error. */
export type TopicDefaults = ReadonlyMap<string, boolean>;

/** A segment a filter may refer to by `segment.<id>`. */
export interface SegmentDefinition {
  filters: FilterExpression;
  trackMembership: boolean;
}
export type SegmentMap = ReadonlyMap<string, SegmentDefinition>;

export interface SegmentScope {
  /** The project's segments; `segment.<id>` of any other id is an error. */
  segments?: SegmentMap | undefined;
  /** The segment whose filter this is, so that a reference back to it is reported as a cycle. */
  segmentId?: string | undefined;
  /** The project's topics; needed only when a filter names one (`topic.<id>`). */
  topics?: TopicDefaults | undefined;
}

export interface EvaluateContext extends SegmentScope {
  now: Date;
  /** "audience" (default) or "workflow" (CONDITION steps: `event.<key>` reads the trigger's data). */
  dialect?: FilterDialect;
  /** Workflow dialect: the event that started the execution. */
  triggerEvent?: { data?: unknown } | undefined;
  /** Workflow dialect: the execution context, merged over the contact's data for `data.<key>`. */
  context?: Record<string, unknown> | undefined;
}

export interface CompileContext extends SegmentScope {
  now: Date;
  /** The first parameter is `$(paramOffset + 1)`, so the expression can join a larger query. */
  paramOffset?: number;
}

import type { EmailActivity, FieldFamilyName, FilterDialect, FilterOperator, TimeUnit } from "@mailroom/contracts";
import { DIALECT_FAMILIES } from "@mailroom/contracts";
import type { ValueType } from "./form-state";

/** What a person reads for each operator; the option's value stays the operator itself. */
export const OPERATOR_LABEL: Record<FilterOperator, string> = {
  equals: "equals",
  notEquals: "does not equal",
  contains: "contains",
  notContains: "does not contain",
  startsWith: "starts with",
  endsWith: "ends with",
  greaterThan: "greater than",
  lessThan: "less than",
  greaterThanOrEqual: "greater than or equal to",
  lessThanOrEqual: "less than or equal to",
  exists: "exists",
  notExists: "does not exist",
  in: "is one of",
  notIn: "is none of",
  within: "within the last",
  olderThan: "older than",
  triggered: "happened",
  notTriggered: "never happened",
  triggeredWithin: "happened within the last",
  triggeredOlderThan: "happened more than … ago",
  notTriggeredWithin: "did not happen within the last",
  memberOfSegment: "is a member",
  notMemberOfSegment: "is not a member",
};

/** Dates read better as before/after than as less/greater. */
export const DATE_OPERATOR_LABEL: Partial<Record<FilterOperator, string>> = {
  greaterThan: "after",
  lessThan: "before",
  greaterThanOrEqual: "at or after",
  lessThanOrEqual: "at or before",
};

export const UNIT_LABEL: Record<TimeUnit, string> = { minutes: "minutes", hours: "hours", days: "days" };

export const VALUE_TYPE_LABEL: Record<ValueType, string> = { string: "Text", number: "Number", boolean: "Boolean", json: "JSON (mixed)" };

export const ACTIVITY_LABEL: Record<EmailActivity, string> = {
  sent: "sent",
  delivered: "delivered",
  opened: "opened",
  clicked: "clicked",
  bounced: "bounced",
  complained: "complained",
};

/**
 * The Field select's choices. `createdAt` and `updatedAt` are one family (timestamp) but two
 * choices, so the choice is the family, or the timestamp's key.
 */
export type FieldChoice = Exclude<FieldFamilyName, "timestamp"> | "createdAt" | "updatedAt";
const CHOICE_LABEL: Record<FieldChoice, string> = {
  email: "Email address",
  subscribed: "Subscribed",
  createdAt: "Created at",
  updatedAt: "Updated at",
  data: "Contact data",
  event: "Event",
  eventData: "Event data",
  emailActivity: "Email activity",
  segment: "Segment",
  topic: "Topic",
};

export function fieldChoices(dialect: FilterDialect): { value: FieldChoice; label: string }[] {
  return DIALECT_FAMILIES[dialect].flatMap((family) =>
    family === "timestamp" ? (["createdAt", "updatedAt"] as const) : ([family] as FieldChoice[]),
  ).map((value) => ({ value, label: CHOICE_LABEL[value] }));
}

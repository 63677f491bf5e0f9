import type { Filter } from "@mailroom/contracts";
import { type DateTest, holds } from "./operators.js";
import { SqlParams, sqlNot } from "./sql.js";
import { windowStart } from "./time.js";

/** Where a family's dated rows live; both tables are indexed on (contact_id, key, time) and (project_id, key, time). */
export interface ActivitySource {
  table: string;
  alias: string;
  keyColumn: string;
  timeColumn: string;
}

export interface ActivityOperator {
  /** `times`: the contact's rows of that name or kind, as epoch milliseconds. */
  memory(times: readonly number[], f: Filter, now: number): boolean;
  sql(source: ActivitySource, key: string, f: Filter, p: SqlParams, now: number): string;
}

/** Any row (window null), or any row inside the window; `not…` operators are the exact negations. */
function activity(window: (f: Filter, now: number) => DateTest | null, negated = false): ActivityOperator {
  return {
    memory(times, f, now) {
      const w = window(f, now);
      const found = w ? times.some((t) => holds(t, w)) : times.length > 0;
      return found !== negated;
    },
    sql(src, key, f, p, now) {
      const w = window(f, now);
      const a = src.alias;
      const time = w ? ` AND ${a}.${src.timeColumn} ${w.op} ${p.time(w.cut)}` : "";
      // For one contact, EXISTS over (contact_id, key, time) stops at the first index entry. Naming
      // the project as well lets the planner count a whole project from (project_id, key, time):
      // it equates a.project_id with the caller's `c.project_id = …` constant.
      const exists = `EXISTS (SELECT 1 FROM ${src.table} ${a} WHERE ${a}.contact_id = c.id AND ${a}.project_id = c.project_id AND ${a}.${src.keyColumn} = ${p.add(key, "text")}${time})`;
      return negated ? sqlNot(exists) : exists;
    },
  };
}

const always = () => null;
const within = (f: Filter, now: number): DateTest => ({ op: ">=", cut: windowStart(f, now) });
const olderThan = (f: Filter, now: number): DateTest => ({ op: "<", cut: windowStart(f, now) });

export const ACTIVITY_OPERATOR_DEFS = {
  triggered: activity(always),
  notTriggered: activity(always, true),
  triggeredWithin: activity(within),
  triggeredOlderThan: activity(olderThan),
  notTriggeredWithin: activity(within, true),
} satisfies Record<string, ActivityOperator>;

import type { ExecutionStatus, FilterExpression, Step, StepRunStatus } from "@mailroom/contracts";

/** Filled badge colours dark enough for white text (WCAG AA). */
export const STATUS_COLOR: Record<ExecutionStatus | StepRunStatus, string> = {
  RUNNING: "blue.8",
  WAITING: "violet.9",
  COMPLETED: "teal.9",
  EXITED: "gray.7",
  FAILED: "red.9",
  CANCELLED: "gray.7",
};

/** One line under a step's name on the canvas: what it is set to do. */
export function stepSummary(step: Pick<Step, "type" | "config">): string {
  const c = step.config as Record<string, unknown>;
  switch (step.type) {
    case "TRIGGER":
      return c.eventName ? `on “${String(c.eventName)}”` : c.cron ? `cron ${String(c.cron)}` : "started by hand";
    case "DELAY":
      return `${String(c.amount)} ${String(c.unit)}`;
    case "WAIT_FOR_EVENT":
      return `“${String(c.eventName)}”${Number(c.timeout) > 0 ? `, ${String(c.timeout)} s timeout` : ""}`;
    case "CONDITION":
      return "logic" in c && c.logic ? expressionSummary(c as unknown as FilterExpression) : `${String(c.field)} ${String(c.operator)} ${c.value === undefined ? "" : JSON.stringify(c.value)}`;
    case "WEBHOOK":
      return `${String(c.method ?? "POST")} ${String(c.url)}`;
    case "SEND_EMAIL":
      return "template";
    case "UPDATE_CONTACT":
      return Object.keys((c.data as object) ?? {}).join(", ");
    case "EXIT":
      return c.reason ? String(c.reason) : "";
  }
}

/** A full filter expression on its node: how many filters its one group ANDs, or how its groups are joined. */
export function expressionSummary(e: FilterExpression): string {
  if (e.groups.length !== 1) return `${e.logic === "OR" ? "any" : "all"} of ${e.groups.length} groups`;
  const [group] = e.groups as [FilterExpression["groups"][number]];
  const n = group.filters.length;
  return `${n === 1 ? "1 filter" : `all of ${n} filters`}${group.conditions ? " and nested conditions" : ""}`;
}

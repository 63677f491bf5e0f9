import type { EventEnvelope, StepConfig } from "@mailroom/contracts";
import type { Q } from "@mailroom/kit";
import type { Claim } from "../db/claims.js";
import { waitsRepo } from "../db/waits-repo.js";

/**
 * WAIT_FOR_EVENT from start to end. A wait is:
 * - `waitFor`: what the step waits for (its event, and a timer when it has a timeout);
 * - `block`: the engine parks the execution WAITING on it (a DELAY is parked the same way: a wait
 *   with a timer and no event);
 * - `resume`: the trigger consumer's events resume the contacts' executions waiting for them;
 * - `timeOut`: the poller fires due timers.
 * Resume and timeout each end the wait in one statement, which also picks the edge the execution
 * follows (EVENT or TIMEOUT; the rule and why it is SQL: `edgeAfter` in src/db/waits-repo.ts) and
 * claims the execution, so the caller hands the claims to the engine, which runs them at once. An
 * event and a timer racing resolve the wait exactly once (the first statement to commit wins).
 */

/** What a blocked execution waits for; null `dueAt`: no timer. */
export interface Wait {
  waitEvent: string | null;
  dueAt: Date | null;
}

/** A WAIT_FOR_EVENT step's wait: its event, and a timer `timeout` seconds (engine time) from now unless 0. */
export function waitFor(config: StepConfig<"WAIT_FOR_EVENT">, timeScale: number, now = Date.now()): Wait {
  const dueAt = config.timeout > 0 ? new Date(now + (config.timeout * 1000) / timeScale) : null;
  return { waitEvent: config.eventName, dueAt };
}

/** Parks a claimed execution on its wait step; nothing happens if the claim was lost meanwhile. */
export function block(q: Q, executionId: string, token: string, stepId: string, runId: string, wait: Wait): Promise<void> {
  return waitsRepo.block(q, executionId, token, stepId, runId, wait.waitEvent, wait.dueAt);
}

/** Resumes the executions waiting for these events (only those waiting since before the event occurred). */
export function resume(q: Q, events: Array<EventEnvelope & { contactId: string }>, token: string, leaseMs: number): Promise<Claim[]> {
  return waitsRepo.resume(
    q,
    events.map((e) => ({ projectId: e.projectId, contactId: e.contactId, name: e.name, occurredAt: e.occurredAt, data: e.data })),
    token,
    leaseMs,
  );
}

/** Fires up to `limit` due timers (WAIT_FOR_EVENT timeouts and DELAYs). */
export function timeOut(q: Q, limit: number, token: string, leaseMs: number): Promise<Claim[]> {
  return waitsRepo.timeOut(q, limit, token, leaseMs);
}

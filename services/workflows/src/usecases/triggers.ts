import type { EventEnvelope } from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { type EventStart, executionsRepo } from "../db/executions-repo.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Engine } from "../engine/engine.js";
import * as waitForEvent from "../engine/wait-for-event.js";

/** Events with a contact, as the trigger handler takes them. */
export type ContactEvent = EventEnvelope & { contactId: string };

/**
 * Handles a batch of events in two rounds of statements: it resumes the contacts' executions waiting
 * for them (while looking up the EVENT workflows listening to their names), then starts those
 * workflows for every event in one statement, and hands both to the engine, which runs them at once.
 * Redelivery is harmless: a resumed execution is no longer WAITING, and the event id is the
 * executions' trigger key (unique).
 */
export class TriggerEvents {
  constructor(
    private readonly sql: Sql,
    private readonly engine: Engine,
    private readonly leaseMs: number,
  ) {}

  /** Resolves when the engine has room for what a batch starts. */
  room(): Promise<void> {
    return this.engine.room();
  }

  async handle(events: ContactEvent[]): Promise<void> {
    if (events.length === 0) return;
    const token = newId();
    const [resumed, listeners] = await Promise.all([
      waitForEvent.resume(this.sql, events, token, this.leaseMs),
      workflowsRepo.listeningToAny(this.sql, events.map((e) => ({ projectId: e.projectId, name: e.name }))),
    ]);
    this.engine.submit(resumed);
    const starts: EventStart[] = events.flatMap((e) =>
      listeners
        .filter((w) => w.project_id === e.projectId && w.trigger_event === e.name)
        .map((w) => ({
          id: newId(),
          runId: newId(),
          nextRunId: newId(),
          workflowId: w.id,
          projectId: e.projectId,
          contactId: e.contactId,
          name: e.name,
          occurredAt: e.occurredAt,
          triggerKey: `event:${e.id}`,
          context: { event: e.data },
        })),
    );
    this.engine.submit(await executionsRepo.startForEvents(this.sql, starts, token, this.leaseMs));
  }
}

import type { EventEnvelope, WireNames } from "@mailroom/contracts";
import { type BatchConsumerSpec, eventConsumer, newId, type Sql } from "@mailroom/kit";
import { type EventStart, executionsRepo } from "../db/executions-repo.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Engine } from "../engine/engine.js";
import * as waitForEvent from "../engine/wait-for-event.js";

/** Events with a contact, as the trigger handler takes them. */
type ContactEvent = EventEnvelope & { contactId: string };

/**
 * Handles a batch of events in two rounds of statements: it resumes the contacts' executions waiting
 * for them (while looking up the EVENT workflows listening to their names), then starts those
 * workflows for every event in one statement, and hands both to the engine, which runs them at once.
 * Redelivery is harmless: a resumed execution is no longer WAITING, and the event id is the
 * executions' trigger key (unique).
 */
export function handleTriggerEvents(sql: Sql, engine: Engine, leaseMs: number) {
  return async (events: ContactEvent[]): Promise<void> => {
    if (events.length === 0) return;
    const token = newId();
    const [resumed, listeners] = await Promise.all([
      waitForEvent.resume(sql, events, token, leaseMs),
      workflowsRepo.listeningToAny(sql, events.map((e) => ({ projectId: e.projectId, name: e.name }))),
    ]);
    engine.submit(resumed);
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
    engine.submit(await executionsRepo.startForEvents(sql, starts, token, leaseMs));
  };
}

/**
 * The `workflows-triggers` durable consumer of every event family (custom, email, contact, segment).
 * It never waits for a batch to fill (a lone event is handled at once), and takes a batch only when
 * the engine has room for what it starts.
 */
export function triggersConsumer(
  names: WireNames,
  sql: Sql,
  engine: Engine,
  opts: { leaseMs: number; concurrency: number; batch: number },
): BatchConsumerSpec<ContactEvent> {
  const handle = handleTriggerEvents(sql, engine, opts.leaseMs);
  return eventConsumer({
    names,
    durable: names.consumers.workflowsTriggers,
    maxDeliver: 10,
    batch: opts.batch,
    concurrency: opts.concurrency,
    waitMs: 0,
    // events without a contact start and resume nothing: acked unhandled
    pick: (event) => (event.contactId ? (event as ContactEvent) : null),
    ready: () => engine.room(),
    handle,
  });
}

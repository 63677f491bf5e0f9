import { EventEnvelope, type WireNames } from "@mailroom/contracts";
import { type ConsumerSpec, newId, PoisonMessage, type Sql } from "@mailroom/kit";
import { executionsRepo } from "../db/executions-repo.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Engine } from "../engine/engine.js";
import type { Starter } from "../engine/starter.js";

/**
 * The `workflows-triggers` durable consumer of every event family (custom, email, contact, segment).
 * Each event with a contact first resumes the contact's executions waiting for it, then starts every
 * enabled EVENT workflow of the project listening to its name. Redelivery is harmless: a resumed
 * execution is no longer WAITING, and the event id is the executions' trigger key (unique).
 */
export function triggersConsumer(names: WireNames, sql: Sql, engine: Engine, starter: Starter, leaseMs: number, concurrency: number): ConsumerSpec {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.workflowsTriggers,
    filterSubject: `${names.prefix}.events.>`,
    concurrency,
    async handle(msg) {
      const parsed = EventEnvelope.safeParse(msg.json());
      if (!parsed.success) throw new PoisonMessage(`not an event envelope: ${parsed.error.message}`);
      const e = parsed.data;
      if (!e.contactId) return;
      await engine.room();
      const token = newId();
      const resumed = await sql.begin((tx) =>
        executionsRepo.resumeOnEvent(tx, { projectId: e.projectId, contactId: e.contactId!, name: e.name, occurredAt: e.occurredAt, data: e.data }, token, leaseMs),
      );
      engine.submit(resumed);
      for (const w of await workflowsRepo.listeningTo(sql, e.projectId, e.name)) {
        await starter.start({
          projectId: e.projectId,
          workflowId: w.id,
          contactIds: [e.contactId],
          context: { event: e.data },
          triggerKey: `event:${e.id}`,
          // an event from before the workflow was enabled (a lagging or replayed stream) starts nothing
          accepts: (row) =>
            row.enabled && row.trigger_type === "EVENT" && row.trigger_event === e.name && row.enabled_at !== null && new Date(row.enabled_at) <= new Date(e.occurredAt),
        });
      }
    },
  };
}

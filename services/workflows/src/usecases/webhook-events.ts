import type { EventEnvelope } from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { matcher, payloadOf } from "../domain/webhooks.js";
import { type NewDelivery, webhooksRepo } from "../db/webhooks-repo.js";

/** Deliveries per insert statement. */
const INSERT_CHUNK = 1000;

/**
 * System events into deliveries: one per (enabled endpoint, matching event), a batch's in one
 * transaction of INSERT_CHUNK-row statements. The (endpoint, event) pair is unique, so a redelivered
 * event message makes nothing twice.
 */
export class WebhookFanOut {
  constructor(
    private readonly sql: Sql,
    /** Tells the dispatcher that deliveries are due now. */
    private readonly due: () => void,
  ) {}

  async handle(events: EventEnvelope[]): Promise<void> {
    const projects = [...new Set(events.map((e) => e.projectId))];
    const endpoints = await webhooksRepo.subscribers(this.sql, projects);
    if (endpoints.length === 0) return;
    const byProject = new Map<string, Array<{ id: string; wants: (name: string) => boolean }>>();
    for (const e of endpoints) {
      const list = byProject.get(e.project_id) ?? [];
      list.push({ id: e.id, wants: matcher(e.events) });
      byProject.set(e.project_id, list);
    }
    const rows: NewDelivery[] = [];
    for (const event of events) {
      let body: string | undefined;
      for (const endpoint of byProject.get(event.projectId) ?? []) {
        if (!endpoint.wants(event.name)) continue;
        body ??= JSON.stringify(payloadOf(event));
        rows.push({ id: newId(), endpoint_id: endpoint.id, project_id: event.projectId, event_id: event.id, event_type: event.name, body });
      }
    }
    // statements of a bounded size, in one transaction: the batch is applied whole or not at all
    const inserted = await this.sql.begin(async (q) => {
      let n = 0;
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) n += await webhooksRepo.insertDeliveries(q, rows.slice(i, i + INSERT_CHUNK));
      return n;
    });
    if (inserted > 0) this.due();
  }
}

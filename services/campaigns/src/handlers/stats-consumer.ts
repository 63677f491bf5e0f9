import type { WireNames } from "@mailroom/contracts";
import { eventConsumer, isId, type BatchConsumerSpec } from "@mailroom/kit";
import { STAT_EVENT_NAMES, statHit, type StatHit } from "../domain/stats.js";
import type { CampaignStats } from "../usecases/stats.js";

/**
 * `campaigns-stats`: counts email events (and unsubscribes through a campaign email) into the
 * campaign's stats and marks the campaign SENT when its last recipient's job has ended.
 * nats-server 2.9 allows one filter subject, so it reads the whole EVENTS stream and skips what
 * cannot count (custom and segment events, email.received) by the names each message lists.
 */
export function statsConsumer(names: WireNames, stats: CampaignStats): BatchConsumerSpec<StatHit> {
  return eventConsumer({
    names,
    durable: names.consumers.campaignsStats,
    reads: (name) => STAT_EVENT_NAMES.has(name),
    batch: 500,
    waitMs: 1000,
    // A dropped stat could leave a campaign in SENDING, so a failing one is retried for about two
    // hours (a database outage) before it goes to the dead-letter subject, from where it can be replayed.
    maxDeliver: 30,
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 2 ** (attempt - 1)),
    // anything that is not a well-formed campaign email event can never count: skipped
    pick: (event, from) => statHit(event, from.batch && isId(from.messageId) ? from.messageId : null),
    handle: (hits) => stats.apply(hits),
  });
}

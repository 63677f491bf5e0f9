import { idOfTime, json, type Q, type Row, traced } from "@mailroom/kit";
import type { webhookDeliveries, webhookEndpoints } from "./schema.js";

export type EndpointRow = Row<typeof webhookEndpoints>;
export type DeliveryRow = Row<typeof webhookDeliveries>;

/** An enabled endpoint as the event consumer matches events against it. */
export type Subscriber = Pick<EndpointRow, "id" | "project_id" | "events">;

/** A claimed delivery with what its call needs from its endpoint. */
export type ClaimedDelivery = DeliveryRow & { url: string; secrets: string[] };

/** A new delivery as the consumer (or a test event) makes it. */
export interface NewDelivery {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_id: string;
  event_type: string;
  body: string;
}

/** What one attempt came to, recorded under the claim's token. */
export interface Attempt {
  id: string;
  token: string;
  ok: boolean;
  code: number | null;
  body: string | null;
  error: string | null;
  /** When a failed delivery is tried again (ms from now); null: it has failed for good. */
  retryInMs: number | null;
  /** Disable the endpoint with this reason (a 410). */
  disable: string | null;
}

/** Every query is scoped by project or by an endpoint already found in the caller's project. */
export const webhooksRepo = traced("WebhooksRepo", {
  async insertEndpoint(q: Q, e: Pick<EndpointRow, "id" | "project_id" | "url" | "events" | "description" | "enabled" | "secret">): Promise<EndpointRow> {
    const [row] = await q<EndpointRow[]>`
      insert into webhook_endpoints (id, project_id, url, events, description, enabled, secret, created_at, updated_at)
      values (${e.id}, ${e.project_id}, ${e.url}, ${e.events}::text[], ${e.description}, ${e.enabled}, ${e.secret}, now(), now())
      returning *`;
    return row!;
  },

  async getEndpoint(q: Q, projectId: string, id: string): Promise<EndpointRow | null> {
    const [row] = await q<EndpointRow[]>`select * from webhook_endpoints where project_id = ${projectId} and id = ${id}`;
    return row ?? null;
  },

  async listEndpoints(q: Q, projectId: string, limit: number, offset: number): Promise<{ rows: EndpointRow[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      q<EndpointRow[]>`select * from webhook_endpoints where project_id = ${projectId} order by created_at desc, id desc limit ${limit} offset ${offset}`,
      q<{ n: number }[]>`select count(*)::int as n from webhook_endpoints where project_id = ${projectId}`,
    ]);
    return { rows, total: count?.n ?? 0 };
  },

  /** Enabling by hand clears the reason Mailroom disabled it and its failure clock. */
  async updateEndpoint(q: Q, projectId: string, id: string, set: Partial<Pick<EndpointRow, "url" | "events" | "description" | "enabled">>): Promise<EndpointRow | null> {
    const [row] = await q<EndpointRow[]>`
      update webhook_endpoints set
        url = coalesce(${set.url ?? null}, url),
        events = coalesce(${set.events ?? null}::text[], events),
        description = case when ${set.description !== undefined} then ${set.description ?? null} else description end,
        enabled = coalesce(${set.enabled ?? null}, enabled),
        disabled_reason = case when ${set.enabled ?? null}::boolean is not null then null else disabled_reason end,
        failing_since = case when ${set.enabled === true} then null else failing_since end,
        updated_at = now()
      where project_id = ${projectId} and id = ${id}
      returning *`;
    return row ?? null;
  },

  async deleteEndpoint(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from webhook_endpoints where project_id = ${projectId} and id = ${id} returning id`;
    return rows.length > 0;
  },

  /** The current secret becomes the previous one, signing beside the new one until `overlapMs` from now. */
  async rotateSecret(q: Q, projectId: string, id: string, secret: string, overlapMs: number): Promise<EndpointRow | null> {
    const [row] = await q<EndpointRow[]>`
      update webhook_endpoints set previous_secret = secret, secret = ${secret},
        previous_secret_expires_at = now() + ${overlapMs} * interval '1 millisecond', updated_at = now()
      where project_id = ${projectId} and id = ${id}
      returning *`;
    return row ?? null;
  },

  /** The enabled endpoints of these projects, for matching a batch of events. */
  async subscribers(q: Q, projectIds: string[]): Promise<Subscriber[]> {
    return q<Subscriber[]>`select id, project_id, events from webhook_endpoints where enabled and project_id = any(${projectIds}::uuid[])`;
  },

  /** Projects with at least one enabled endpoint: the consumer skips every other project's events unread. */
  async subscribedProjects(q: Q): Promise<string[]> {
    const rows = await q<{ project_id: string }[]>`select distinct project_id from webhook_endpoints where enabled`;
    return rows.map((r) => r.project_id);
  },

  /** New deliveries, due now; an (endpoint, event) pair already there (a redelivered message) is skipped. */
  async insertDeliveries(q: Q, rows: NewDelivery[]): Promise<number> {
    if (rows.length === 0) return 0;
    const inserted = await q`
      insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, body, status, attempts, next_attempt_at, created_at)
      select id, endpoint_id, project_id, event_id, event_type, body, 'PENDING', 0, now(), now()
      from json_to_recordset(${json(rows)}::json) as r(id uuid, endpoint_id uuid, project_id uuid, event_id text, event_type text, body text)
      on conflict (endpoint_id, event_id) do nothing
      returning id`;
    return inserted.length;
  },

  /**
   * Due deliveries of enabled endpoints, at most `free(endpoint)` per endpoint (`busy` lists this
   * replica's calls under way per endpoint, so one endpoint never holds more than `perEndpoint`
   * of its slots) and `limit` in all. Each is leased until `leaseMs` from now, so a replica that dies
   * mid-call leaves it due again, and only the claim's token records its answer. The attempt is
   * counted at the claim: a call cut short by a crash was an attempt too.
   *
   * `floors` (per endpoint) start an endpoint's look at that due time instead of at its oldest
   * entry: without a vacuum, the due index keeps an entry for every delivery already made, in front
   * of the pending ones, and a claim walked all of them for every endpoint. A claim without floors
   * (the dispatcher's sweep) looks at everything.
   */
  async claimDue(
    q: Q,
    opts: { limit: number; perEndpoint: number; busy: Map<string, number>; floors: Map<string, Date>; token: string; leaseMs: number },
  ): Promise<ClaimedDelivery[]> {
    return q<ClaimedDelivery[]>`
      with busy as (select * from unnest(${[...opts.busy.keys()]}::uuid[], ${[...opts.busy.values()]}::int[]) as b(id, n)),
      floors as (select * from unnest(${[...opts.floors.keys()]}::uuid[], ${[...opts.floors.values()].map((at) => at.toISOString())}::timestamptz[]) as f(id, at)),
      due as (
        select d.id, e.url, array_remove(array[e.secret, case when e.previous_secret_expires_at > now() then e.previous_secret end], null) as secrets
        from webhook_endpoints e
        left join busy on busy.id = e.id
        left join floors on floors.id = e.id
        cross join lateral (
          select id from webhook_deliveries d
          where d.endpoint_id = e.id and d.status = 'PENDING' and d.next_attempt_at <= now()
            and d.next_attempt_at >= coalesce(floors.at, '-infinity')
            and (d.lease_until is null or d.lease_until <= now())
          order by d.next_attempt_at
          limit greatest(0, ${opts.perEndpoint} - coalesce(busy.n, 0))
          for update skip locked
        ) d
        where e.enabled
        limit ${opts.limit}
      )
      update webhook_deliveries w set attempts = w.attempts + 1, lease_token = ${opts.token},
        lease_until = now() + ${opts.leaseMs} * interval '1 millisecond', last_attempt_at = now()
      from due where w.id = due.id
      returning w.*, due.url, due.secrets`;
  },

  /** Claims handed back unused (a stopping replica's): due again at once, their attempt uncounted. */
  async unclaim(q: Q, claims: Array<{ id: string; token: string }>): Promise<void> {
    if (claims.length === 0) return;
    await q`
      update webhook_deliveries w set lease_token = null, lease_until = null, attempts = w.attempts - 1
      from json_to_recordset(${json(claims)}::json) as o(id uuid, token uuid)
      where w.id = o.id and w.lease_token = o.token`;
  },

  /**
   * Attempts' outcomes in one statement, each only if its claim is still the one that made it, and
   * their endpoints' failure clocks: a success stops the clock (written only when it ran), a failure
   * starts it, and an endpoint is disabled by a 410 or by a failure five days into the clock.
   * Answers how many were recorded.
   *
   * Lock order, as a delete's cascade takes them: the endpoints' rows first (in id order), then
   * their deliveries'. The update reads `locked` in a condition on no row (a one-time filter), which
   * PostgreSQL runs before it reads a delivery. Recording the deliveries first and their endpoint's
   * clock after deadlocked with an endpoint's DELETE (test/webhooks-locking.test.ts).
   */
  async recordAttempts(q: Q, attempts: Attempt[], giveUpAfterMs: number): Promise<number> {
    const [row] = await q<{ n: number }[]>`
      with o as (
        select * from json_to_recordset(${json(attempts)}::json)
          as o(id uuid, token uuid, ok boolean, code int, body text, error text, "retryInMs" float8, disable text)),
      locked as (
        select e.id from webhook_endpoints e
        where e.id in (select w.endpoint_id from webhook_deliveries w join o on w.id = o.id)
        order by e.id for no key update of e),
      d as (
        update webhook_deliveries w set
          status = case when o.ok then 'SUCCEEDED' when o."retryInMs" is null then 'FAILED' else 'PENDING' end,
          next_attempt_at = case when o.ok or o."retryInMs" is null then null else now() + o."retryInMs" * interval '1 millisecond' end,
          lease_token = null, lease_until = null, response_code = o.code, response_body = o.body, error = o.error
        from o where w.id = o.id and w.lease_token = o.token and (select count(*) from locked) >= 0
        returning w.endpoint_id, o.ok, o.disable),
      per as (select endpoint_id, bool_or(ok) as any_ok, max(disable) as disable from d group by endpoint_id),
      ended as (
        select e.id, per.any_ok, per.disable,
          e.enabled and (per.disable is not null
            or (not per.any_ok and coalesce(e.failing_since, now()) < now() - ${giveUpAfterMs} * interval '1 millisecond')) as off
        from webhook_endpoints e join per on per.endpoint_id = e.id
        where not per.any_ok or per.disable is not null or e.failing_since is not null),
      clock as (
        update webhook_endpoints e set
          failing_since = case when ended.any_ok and not ended.off then null else coalesce(e.failing_since, now()) end,
          enabled = e.enabled and not ended.off,
          disabled_reason = case when ended.off then coalesce(ended.disable, 'every delivery failed for 5 days') else e.disabled_reason end,
          updated_at = case when ended.off then now() else e.updated_at end
        from ended where e.id = ended.id)
      select count(*)::int as n from d`;
    return row?.n ?? 0;
  },

  async getDelivery(q: Q, endpointId: string, id: string): Promise<DeliveryRow | null> {
    const [row] = await q<DeliveryRow[]>`select * from webhook_deliveries where endpoint_id = ${endpointId} and id = ${id}`;
    return row ?? null;
  },

  /** Newest first (ids are time-ordered), `before` the last id of the previous page. */
  async listDeliveries(q: Q, endpointId: string, opts: { status?: string; before?: string; limit: number }): Promise<DeliveryRow[]> {
    return q<DeliveryRow[]>`
      select * from webhook_deliveries
      where endpoint_id = ${endpointId}
        ${opts.status ? q`and status = ${opts.status}` : q``}
        ${opts.before ? q`and id < ${opts.before}` : q``}
      order by id desc limit ${opts.limit}`;
  },

  /** Due now, with a new round of attempts; a call under way loses its claim (its answer is not recorded). */
  async retryNow(q: Q, endpointId: string, id: string): Promise<DeliveryRow | null> {
    const [row] = await q<DeliveryRow[]>`
      update webhook_deliveries set status = 'PENDING', attempts = 0, next_attempt_at = now(), lease_token = null, lease_until = null
      where endpoint_id = ${endpointId} and id = ${id}
      returning *`;
    return row ?? null;
  },

  /** Deliveries older than the retention, a bounded batch at a time (ids are time-ordered: by id). */
  async purgeBefore(q: Q, retentionMs: number, batch: number): Promise<number> {
    const rows = await q`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where id < ${idOfTime(Date.now() - retentionMs)}::uuid limit ${batch})
      returning id`;
    return rows.length;
  },
});

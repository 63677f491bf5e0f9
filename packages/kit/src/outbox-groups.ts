import type postgres from "postgres";
import { newId } from "./ids.js";
import { traceHeaders } from "./nats.js";
import type { StoredMessage } from "./outbox.js";

/**
 * Outbox messages that each carry many items of one multi-row write: event batches (events.ts) and
 * delivery jobs (the sending service's). A write of hundreds of rows then costs one outbox row, one
 * publish and one delivery per consumer for each few hundred items, not one of each per row.
 *
 * Each item is owned by the row whose write it reports. The write's own statement stores the
 * messages (`outboxGroupInsert`, guarded by the rows it wrote), so a message holds exactly the items
 * of the rows that statement wrote, and nothing when it wrote none; after it, `writtenGroups` gives
 * the same messages, from memory, for `OutboxRelay.kick`.
 */

export interface GroupItem {
  owner: string;
  /** Items of one subject share messages. */
  subject: string;
  /** The item, serialised. */
  json: string;
  /** What the message's headers say of the items it carries (an event's name). */
  tag?: string;
}

/** A message as built before its statement ran: each item kept if its owner turns out written. */
export interface PendingGroup {
  id: string;
  subject: string;
  /** The payload is `{<key>: [items…]}`. */
  key: string;
  headers: Record<string, string>;
  items: GroupItem[];
}

export interface GroupOptions {
  key: string;
  /** Bytes of items per message, and items per message. */
  maxBytes: number;
  maxItems: number;
  /** Headers of a message from the items it carries (beside the trace headers every row has). */
  headers?: (items: GroupItem[]) => Record<string, string>;
}

/** A message's payload, `{<key>: [items…]}`, as stored and as published. */
const payloadOf = (key: string, items: GroupItem[]): string => `{${JSON.stringify(key)}:[${items.map((i) => i.json).join(",")}]}`;

/**
 * The items as messages: one or more per subject, in the order given, each within the limits.
 * `json` is one parameter for `outboxGroupInsert`.
 */
export function groupMessages(items: GroupItem[], opts: GroupOptions): { json: string; groups: PendingGroup[] } {
  const trace = traceHeaders();
  const open = new Map<string, { group: PendingGroup; bytes: number }>();
  const groups: PendingGroup[] = [];
  for (const item of items) {
    let o = open.get(item.subject);
    if (o && (o.bytes + item.json.length > opts.maxBytes || o.group.items.length >= opts.maxItems)) o = undefined;
    if (!o) {
      o = { group: { id: newId(), subject: item.subject, key: opts.key, headers: trace, items: [] }, bytes: 0 };
      open.set(item.subject, o);
      groups.push(o.group);
    }
    o.group.items.push(item);
    o.bytes += item.json.length;
  }
  const rows: string[] = [];
  for (const g of groups) {
    if (opts.headers) g.headers = { ...trace, ...opts.headers(g.items) };
    const owners = JSON.stringify(g.items.map((i) => i.owner));
    rows.push(`{"id":"${g.id}","subject":${JSON.stringify(g.subject)},"key":${JSON.stringify(g.key)},"headers":${JSON.stringify(g.headers)},"owners":${owners},"payload":${payloadOf(g.key, g.items)}}`);
  }
  return { json: `[${rows.join(",")}]`, groups };
}

/**
 * `insert into outbox … select …` of `groupMessages(…).json`, as a fragment for a CTE: one row per
 * message holding the items whose owner is among `written` (a subquery of the same statement, such
 * as `select id from moved`), in the order given. A message none of whose owners was written is no row.
 *
 * Each message comes whole, as built in memory, with its items' owners in order: when every owner
 * was written (all but always) the payload is stored as it is, parsed once. Only a message some of
 * whose owners were not written is taken apart and rebuilt without their items. (Sent item by item
 * and aggregated in SQL, a campaign's event batch of fifty events cost PostgreSQL about 2.5 ms.)
 */
export function outboxGroupInsert(q: postgres.ISql, json: string, written: postgres.PendingQuery<postgres.Row[]>) {
  return q`insert into outbox (id, subject, payload, headers)
    select g.id, g.subject,
      case when g.owners <@ w.ids then g.payload::jsonb
      else jsonb_build_object(g.key, (
        select jsonb_agg(x.item order by x.n) from jsonb_array_elements(g.payload::jsonb -> g.key) with ordinality as x(item, n)
        where g.owners[x.n] = any(w.ids)))
      end,
      g.headers::jsonb
    from json_to_recordset(${json}::json) as g(id uuid, subject text, key text, headers json, owners uuid[], payload json),
      (select array(${written}) as ids) w
    where g.owners && w.ids`;
}

/** The messages as the statement stored them (`written`: the owners it wrote), ready to publish. */
export function writtenGroups(groups: PendingGroup[], written: ReadonlySet<string>): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (const g of groups) {
    const kept = g.items.filter((i) => written.has(i.owner));
    if (kept.length > 0) out.push({ id: g.id, subject: g.subject, headers: g.headers, data: payloadOf(g.key, kept) });
  }
  return out;
}

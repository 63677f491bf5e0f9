import type { Topic } from "@mailroom/contracts";
import { iso, traced, type Q, type Row } from "@mailroom/kit";
import type { topics } from "./schema.js";

export type TopicRow = Row<typeof topics>;

export const toTopic = (r: TopicRow): Topic => ({
  id: r.id,
  name: r.name,
  description: r.description,
  defaultSubscribed: r.default_subscribed,
  createdAt: iso(r.created_at),
});

/** Every query is scoped by project: another project's topic is simply not found. */
export const topicsRepo = traced("TopicsRepo", {
  async all(q: Q, projectId: string): Promise<TopicRow[]> {
    return q<TopicRow[]>`select * from topics where project_id = ${projectId} order by id`;
  },

  /** id → defaultSubscribed, what the filter evaluators and the contact writes need. */
  async defaults(q: Q, projectId: string): Promise<Map<string, boolean>> {
    const rows = await q<Pick<TopicRow, "id" | "default_subscribed">[]>`select id, default_subscribed from topics where project_id = ${projectId}`;
    return new Map(rows.map((r) => [r.id, r.default_subscribed]));
  },

  async get(q: Q, projectId: string, id: string): Promise<TopicRow | null> {
    const [row] = await q<TopicRow[]>`select * from topics where project_id = ${projectId} and id = ${id}`;
    return row ?? null;
  },

  async count(q: Q, projectId: string): Promise<number> {
    const [row] = await q<{ n: number }[]>`select count(*)::int as n from topics where project_id = ${projectId}`;
    return row?.n ?? 0;
  },

  async insert(q: Q, row: TopicRow): Promise<TopicRow> {
    const [created] = await q<TopicRow[]>`
      insert into topics (id, project_id, name, description, default_subscribed, created_at)
      values (${row.id}, ${row.project_id}, ${row.name}, ${row.description}, ${row.default_subscribed}, ${iso(row.created_at)})
      returning *`;
    return created!;
  },

  async update(q: Q, row: TopicRow): Promise<TopicRow | null> {
    const [updated] = await q<TopicRow[]>`
      update topics set name = ${row.name}, description = ${row.description}, default_subscribed = ${row.default_subscribed}
      where project_id = ${row.project_id} and id = ${row.id} returning *`;
    return updated ?? null;
  },

  /** Deletes the topic and every contact's choice for it. */
  async delete(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from topics where project_id = ${projectId} and id = ${id} returning id`;
    if (rows.length === 0) return false;
    await q`update contacts set topics = topics - ${id}::text where project_id = ${projectId} and topics ? ${id}::text`;
    return true;
  },
});

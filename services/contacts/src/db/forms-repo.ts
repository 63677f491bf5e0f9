import type { Form } from "@mailroom/contracts";
import { iso, json, traced, type Q, type Row } from "@mailroom/kit";
import type { forms } from "./schema.js";

export type FormRow = Row<typeof forms>;

export const toForm = (r: FormRow): Form => ({
  id: r.id,
  name: r.name,
  fields: r.fields,
  topicIds: r.topic_ids,
  redirectUrl: r.redirect_url,
  successMessage: r.success_message,
  submissions: Number(r.submissions),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Every query but `byId` (the public page, which knows no project) is scoped by project. */
export const formsRepo = traced("FormsRepo", {
  async all(q: Q, projectId: string): Promise<FormRow[]> {
    return q<FormRow[]>`select * from forms where project_id = ${projectId} order by id`;
  },

  async get(q: Q, projectId: string, id: string): Promise<FormRow | null> {
    const [row] = await q<FormRow[]>`select * from forms where project_id = ${projectId} and id = ${id}`;
    return row ?? null;
  },

  /** The hosted page and its submissions: the form id is all they have. */
  async byId(q: Q, id: string): Promise<FormRow | null> {
    const [row] = await q<FormRow[]>`select * from forms where id = ${id}`;
    return row ?? null;
  },

  async count(q: Q, projectId: string): Promise<number> {
    const [row] = await q<{ n: number }[]>`select count(*)::int as n from forms where project_id = ${projectId}`;
    return row?.n ?? 0;
  },

  async insert(q: Q, row: FormRow): Promise<FormRow> {
    const [created] = await q<FormRow[]>`
      insert into forms (id, project_id, name, fields, topic_ids, redirect_url, success_message, submissions, created_at, updated_at)
      values (${row.id}, ${row.project_id}, ${row.name}, ${json(row.fields)}::jsonb, ${json(row.topic_ids)}::jsonb, ${row.redirect_url},
              ${row.success_message}, 0, ${iso(row.created_at)}, ${iso(row.updated_at)})
      returning *`;
    return created!;
  },

  async update(q: Q, row: FormRow): Promise<FormRow | null> {
    const [updated] = await q<FormRow[]>`
      update forms set name = ${row.name}, fields = ${json(row.fields)}::jsonb, topic_ids = ${json(row.topic_ids)}::jsonb,
        redirect_url = ${row.redirect_url}, success_message = ${row.success_message}, updated_at = ${iso(row.updated_at)}
      where project_id = ${row.project_id} and id = ${row.id} returning *`;
    return updated ?? null;
  },

  async delete(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from forms where project_id = ${projectId} and id = ${id} returning id`;
    return rows.length > 0;
  },

  /** One accepted submission. */
  async counted(q: Q, id: string): Promise<void> {
    await q`update forms set submissions = submissions + 1 where id = ${id}`;
  },
});

import type { CreateTemplateRequest, Template, TemplateType, UpdateTemplateRequest } from "@mailroom/contracts";
import { columns, iso, isId, type RowOf, traced, type Q, type Row } from "@mailroom/kit";
import type { templates } from "./schema.js";

const COLUMNS = columns<Row<typeof templates>>()(["id", "name", "subject", "body", "type", "from_email", "from_name", "reply_to", "created_at", "updated_at"]);
type TemplateRow = RowOf<typeof COLUMNS>;
const toTemplate = (r: TemplateRow): Template => ({
  id: r.id,
  name: r.name,
  subject: r.subject,
  body: r.body,
  type: r.type,
  from: r.from_email,
  fromName: r.from_name,
  replyTo: r.reply_to,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** LIKE pattern of a user's substring: its own % and _ are literal. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const templatesRepo = traced("TemplatesRepo", {
  async create(q: Q, projectId: string, id: string, t: CreateTemplateRequest): Promise<Template> {
    const [row] = await q<TemplateRow[]>`
      insert into templates (id, project_id, name, subject, body, type, from_email, from_name, reply_to)
      values (${id}, ${projectId}, ${t.name}, ${t.subject}, ${t.body}, ${t.type}, ${t.from ?? null}, ${t.fromName ?? null}, ${t.replyTo ?? null})
      returning ${q.unsafe(COLUMNS.sql)}`;
    return toTemplate(row!);
  },

  /** Null for an id that is not a UUID too: it cannot exist. */
  async get(q: Q, projectId: string, id: string): Promise<Template | null> {
    if (!isId(id)) return null;
    const [row] = await q<TemplateRow[]>`select ${q.unsafe(COLUMNS.sql)} from templates where project_id = ${projectId} and id = ${id}`;
    return row ? toTemplate(row) : null;
  },

  /** Page-number listing, newest first; `search` matches name or subject, case-insensitively. */
  async list(q: Q, projectId: string, o: { page: number; limit: number; type?: TemplateType; search?: string }) {
    const where = () => q`project_id = ${projectId}
      ${o.type ? q`and type = ${o.type}` : q``}
      ${o.search ? q`and (name ilike ${likePattern(o.search)} or subject ilike ${likePattern(o.search)})` : q``}`;
    const [count] = await q<{ total: number }[]>`select count(*)::int as total from templates where ${where()}`;
    const total = count?.total ?? 0;
    const rows = await q<TemplateRow[]>`
      select ${q.unsafe(COLUMNS.sql)} from templates where ${where()}
      order by created_at desc, id desc limit ${o.limit} offset ${(o.page - 1) * o.limit}`;
    return { templates: rows.map(toTemplate), total, page: o.page, pageSize: o.limit, totalPages: Math.ceil(total / o.limit) };
  },

  async update(q: Q, projectId: string, id: string, patch: UpdateTemplateRequest): Promise<Template | null> {
    const columns: Record<string, unknown> = { updated_at: new Date().toISOString() };
    const map = { name: "name", subject: "subject", body: "body", type: "type", from: "from_email", fromName: "from_name", replyTo: "reply_to" } as const;
    for (const [key, column] of Object.entries(map)) {
      const value = patch[key as keyof UpdateTemplateRequest];
      if (value !== undefined) columns[column] = value;
    }
    const [row] = await q<TemplateRow[]>`
      update templates set ${q(columns)}
      where project_id = ${projectId} and id = ${id} returning ${q.unsafe(COLUMNS.sql)}`;
    return row ? toTemplate(row) : null;
  },

  async delete(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from templates where project_id = ${projectId} and id = ${id} returning id`;
    return rows.length === 1;
  },
});

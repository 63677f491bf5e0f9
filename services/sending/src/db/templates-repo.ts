import type { CreateTemplateRequest, Template, TemplateType, UpdateTemplateRequest } from "@mailroom/contracts";
import { isId, type Sql } from "@mailroom/kit";
import { isoNotNull } from "./values.js";

const COLUMNS = `id, name, subject, body, type, from_email as "from", from_name as "fromName", reply_to as "replyTo",
  created_at as "createdAt", updated_at as "updatedAt"`;

type Row = Omit<Template, "createdAt" | "updatedAt"> & { createdAt: Date | string; updatedAt: Date | string };
const toTemplate = (r: Row): Template => ({ ...r, createdAt: isoNotNull(r.createdAt), updatedAt: isoNotNull(r.updatedAt) });

/** LIKE pattern of a user's substring: its own % and _ are literal. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class TemplatesRepo {
  constructor(private readonly sql: Sql) {}

  async create(projectId: string, id: string, t: CreateTemplateRequest): Promise<Template> {
    const [row] = await this.sql<Row[]>`
      insert into templates (id, project_id, name, subject, body, type, from_email, from_name, reply_to)
      values (${id}, ${projectId}, ${t.name}, ${t.subject}, ${t.body}, ${t.type}, ${t.from ?? null}, ${t.fromName ?? null}, ${t.replyTo ?? null})
      returning ${this.sql.unsafe(COLUMNS)}`;
    return toTemplate(row!);
  }

  /** Null for an id that is not a UUID too: it cannot exist. */
  async get(projectId: string, id: string): Promise<Template | null> {
    if (!isId(id)) return null;
    const [row] = await this.sql<Row[]>`select ${this.sql.unsafe(COLUMNS)} from templates where project_id = ${projectId} and id = ${id}`;
    return row ? toTemplate(row) : null;
  }

  /** Page-number listing, newest first; `search` matches name or subject, case-insensitively. */
  async list(projectId: string, q: { page: number; limit: number; type?: TemplateType; search?: string }) {
    const s = this.sql;
    const where = () => s`project_id = ${projectId}
      ${q.type ? s`and type = ${q.type}` : s``}
      ${q.search ? s`and (name ilike ${likePattern(q.search)} or subject ilike ${likePattern(q.search)})` : s``}`;
    const [count] = await s<{ total: number }[]>`select count(*)::int as total from templates where ${where()}`;
    const total = count?.total ?? 0;
    const rows = await s<Row[]>`
      select ${s.unsafe(COLUMNS)} from templates where ${where()}
      order by created_at desc, id desc limit ${q.limit} offset ${(q.page - 1) * q.limit}`;
    return { templates: rows.map(toTemplate), total, page: q.page, pageSize: q.limit, totalPages: Math.ceil(total / q.limit) };
  }

  async update(projectId: string, id: string, patch: UpdateTemplateRequest): Promise<Template | null> {
    const columns: Record<string, unknown> = { updated_at: new Date().toISOString() };
    const map = { name: "name", subject: "subject", body: "body", type: "type", from: "from_email", fromName: "from_name", replyTo: "reply_to" } as const;
    for (const [key, column] of Object.entries(map)) {
      const value = patch[key as keyof UpdateTemplateRequest];
      if (value !== undefined) columns[column] = value;
    }
    const s = this.sql;
    const [row] = await s<Row[]>`
      update templates set ${s(columns)}
      where project_id = ${projectId} and id = ${id} returning ${s.unsafe(COLUMNS)}`;
    return row ? toTemplate(row) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const rows = await this.sql`delete from templates where project_id = ${projectId} and id = ${id} returning id`;
    return rows.length === 1;
  }
}

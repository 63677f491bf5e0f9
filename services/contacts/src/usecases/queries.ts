import type { Contact, ContactEventList, ContactList } from "@mailroom/contracts";
import { isId, type Sql } from "@mailroom/kit";
import { contactsRepo } from "../db/contacts-repo.js";
import { toContact } from "../db/rows.js";
import { eventsRepo, toContactEvent } from "../db/events-repo.js";
import type { CursorCodec } from "../domain/cursor.js";
import { DATA_KEY_SAMPLE, dataKeyPaths } from "../domain/data-keys.js";

/** Reads. Every one is bounded by a page size; none loads a whole project. */
export class ContactQueries {
  constructor(
    private readonly sql: Sql,
    private readonly cursors: CursorCodec,
  ) {}

  async list(projectId: string, q: { limit: number; cursor?: string; search?: string }): Promise<ContactList> {
    const afterId = q.cursor ? this.cursors.decode(`contacts:${projectId}`, q.cursor) : undefined;
    const search = q.search || undefined;
    const rows = await contactsRepo.list(this.sql, projectId, { afterId, limit: q.limit + 1, search });
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    // Counted on the first page only (api-spec): later pages answer 0 and cost nothing extra.
    const total = q.cursor ? 0 : await contactsRepo.count(this.sql, projectId, search);
    const last = page.at(-1);
    return {
      data: page.map(toContact),
      cursor: hasMore && last ? this.cursors.encode(`contacts:${projectId}`, last.id) : null,
      hasMore,
      total,
    };
  }

  async get(projectId: string, id: string): Promise<Contact | null> {
    if (!isId(id)) return null;
    const row = await contactsRepo.byId(this.sql, projectId, id);
    return row ? toContact(row) : null;
  }

  async getByEmail(projectId: string, email: string): Promise<Contact | null> {
    const row = await contactsRepo.byEmail(this.sql, projectId, email);
    return row ? toContact(row) : null;
  }

  /** A contact's tracked events, newest first; null when the contact is not in the project. */
  async events(projectId: string, contactId: string, q: { limit: number; cursor?: string }): Promise<ContactEventList | null> {
    if (!(await this.get(projectId, contactId))) return null;
    const scope = `events:${projectId}:${contactId}`;
    const beforeId = q.cursor ? this.cursors.decode(scope, q.cursor) : undefined;
    const rows = await eventsRepo.listForContact(this.sql, projectId, contactId, { beforeId, limit: q.limit + 1 });
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return { data: page.map(toContactEvent), cursor: hasMore && last ? this.cursors.encode(scope, last.id) : null, hasMore };
  }

  /** Sampled from the newest contacts: keys only older contacts carry may be missing (domain/data-keys.ts). */
  async dataKeys(projectId: string): Promise<string[]> {
    return dataKeyPaths(await contactsRepo.recentData(this.sql, projectId, DATA_KEY_SAMPLE));
  }

  eventNames(projectId: string): Promise<string[]> {
    return eventsRepo.names(this.sql, projectId);
  }
}

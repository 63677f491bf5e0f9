import { traced, type Q, type Row } from "@mailroom/kit";
import type { StoredAttachment } from "../domain/compose.js";
import type { attachments } from "./schema.js";

type AttachmentRow = Pick<Row<typeof attachments>, "id" | "filename" | "content_type" | "content_id" | "disposition" | "content">;

/** The attachments of a /v1/send, stored once for all the email records of its recipients. */
export const attachmentsRepo = traced("AttachmentsRepo", {
  async insert(q: Q, projectId: string, ids: string[], files: StoredAttachment[]): Promise<void> {
    if (files.length === 0) return;
    const rows = files.map((f, i) => ({
      id: ids[i]!,
      project_id: projectId,
      filename: f.filename,
      content_type: f.contentType,
      content_id: f.contentId,
      disposition: f.disposition,
      content: f.content,
    }));
    await q`insert into attachments ${q(rows)}`;
  },

  /** The attachments of `ids`, in that order (an id without one is left out). */
  async get(q: Q, ids: string[]): Promise<StoredAttachment[]> {
    if (ids.length === 0) return [];
    const rows = await q<AttachmentRow[]>`
      select id, filename, content_type, content_id, disposition, content
      from attachments where id = any(${ids}::uuid[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      return r ? [{ filename: r.filename, contentType: r.content_type, contentId: r.content_id, disposition: r.disposition, content: r.content }] : [];
    });
  },

  /** Attachments stored by an attempt whose emails were not queued (a twin attempt's were). */
  async delete(q: Q, projectId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await q`delete from attachments where project_id = ${projectId} and id = any(${ids}::uuid[])`;
  },
});

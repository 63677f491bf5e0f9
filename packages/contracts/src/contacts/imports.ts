import { z } from "zod";
import { Id, IdParams } from "../common.js";
import { UPLOAD_MAX_BYTES, defineRoute } from "../route.js";
import { contactsRpc } from "./rpc.js";

/** decisions.md §14. RUNNING until every row is applied (or the file could not be read at all). */
export const ImportStatus = z.enum(["RUNNING", "COMPLETED", "FAILED"]);
export type ImportStatus = z.infer<typeof ImportStatus>;

/** How many row errors an import keeps (the counts go on past it). */
export const MAX_IMPORT_ERRORS = 100;

/**
 * A row that was not imported. `row` is the record's number in the file as a spreadsheet shows it:
 * the header is row 1, the first contact row 2. A problem with the whole file (no `email` column, an
 * upload that expired before it was read) is reported at row 1 with status FAILED.
 */
export const ImportRowError = z.object({ row: z.number().int().min(1), message: z.string() });
export type ImportRowError = z.infer<typeof ImportRowError>;

/**
 * Progress and outcome of a CSV import. `rows` counts the contact rows read so far; each ends in
 * `created`, `updated` (the address existed, whether or not anything changed) or `failed`, except a
 * row superseded by a later row with the same address (the last row wins), which counts in none.
 */
export const ContactImport = z.object({
  id: z.string(),
  status: ImportStatus,
  rows: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(ImportRowError),
  /**
   * With double opt-in on (decisions.md §14), rows that asked to subscribe a contact who was not
   * subscribed: the contact stays unsubscribed and is mailed a confirmation link. 0 otherwise.
   */
  awaitingConfirmation: z.number().int(),
});
export type ContactImport = z.infer<typeof ContactImport>;

export const ImportAccepted = ContactImport.pick({ id: true, status: true });
export type ImportAccepted = z.infer<typeof ImportAccepted>;

/** How many topics one import may opt its contacts into. */
export const MAX_IMPORT_TOPICS = 20;

/**
 * `?topics=<id,…>`: topics every imported contact is opted into (their choice set to true), on top
 * of what the file says. Each must be a topic of the project (400 otherwise).
 */
export const ImportContactsQuery = z.object({
  topics: z
    .string()
    .max(MAX_IMPORT_TOPICS * 201)
    .refine((v) => importTopicIds(v).length <= MAX_IMPORT_TOPICS, `at most ${MAX_IMPORT_TOPICS} topics`)
    .refine((v) => importTopicIds(v).every((id) => Id.safeParse(id).success), "a comma-separated list of topic ids")
    .optional(),
});
export type ImportContactsQuery = z.infer<typeof ImportContactsQuery>;

/** The distinct topic ids of `?topics=` (empty entries skipped). */
export function importTopicIds(topics: string | undefined): string[] {
  return [...new Set((topics ?? "").split(",").map((t) => t.trim()).filter((t) => t.length > 0))];
}

export const ExportContactsQuery = z.object({ segmentId: Id.optional() });
export type ExportContactsQuery = z.infer<typeof ExportContactsQuery>;

/** Content types an import accepts: CSV (and text/plain, what some tools send for a .csv file). */
export const IMPORT_CONTENT_TYPES = ["text/csv", "application/csv", "text/plain"] as const;

const base = { service: "contacts", auth: "secret", tag: "Contacts" } as const;

export const importRoutes = [
  defineRoute({
    ...base,
    method: "POST",
    path: "/contacts/imports",
    operation: "contacts.imports.create",
    summary:
      "Import contacts from a CSV body (header row; `email` required, `subscribed` optional, every other column goes to `data`, with the data rules of POST /contacts; `?topics=` opts every row into those topics; with double opt-in on, a new subscription waits for its confirmation email). Answers 202 at once; the import runs in the background",
    upload: { contentTypes: IMPORT_CONTENT_TYPES, slots: { reserve: contactsRpc.reserveImport.operation, release: contactsRpc.releaseImport.operation } },
    query: ImportContactsQuery,
    bodyLimit: UPLOAD_MAX_BYTES,
    response: ImportAccepted,
    status: 202,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts/imports/:id",
    operation: "contacts.imports.read",
    summary: "Progress and outcome of a CSV import (the first 100 row errors)",
    params: IdParams,
    response: ContactImport,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts/export",
    operation: "contacts.export",
    summary:
      "Export contacts (all, or a segment's members) as CSV: email, subscribed, createdAt, then one column per data key of the project; a cell that a spreadsheet would take for a formula starts with '",
    query: ExportContactsQuery,
    rawResponse: { contentType: "text/csv; charset=utf-8", description: "the contacts as CSV, streamed" },
    streamed: true,
    status: 200,
  }),
];

import { z } from "zod";

/** Timestamps on the wire are ISO 8601 strings. */
export const Timestamp = z.iso.datetime({ offset: true });

/** An email address as accepted by the API (full RFC parsing lives in the verify service). */
export const EmailAddress = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "must be a valid email address" }));

/** Path ids are opaque strings; a malformed one is simply "not found" in the caller's project. */
export const Id = z.string().min(1).max(200);
export const IdParams = z.object({ id: Id });

/** `limit` of every list endpoint: 1..100, default 20 (query strings arrive as text). */
export const Limit = z.coerce.number().int().min(1).max(100).default(20);
export const Cursor = z.string().min(1).max(500).optional();

export const CursorPageQuery = z.object({ limit: Limit, cursor: Cursor });

/** Free-form JSON object (custom data, contexts). Size and depth limits are checked by the owner. */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

export const SuccessEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** The "page" shape of templates, campaigns and workflows lists (api-spec Pagination shapes). */
export const pageShape = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({
    [key]: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
  } as { [P in K]: z.ZodArray<T> } & {
    total: z.ZodNumber;
    page: z.ZodNumber;
    pageSize: z.ZodNumber;
    totalPages: z.ZodNumber;
  });

/** Page-number query of those lists: `cursor` is the page number as a string; `page` also accepted. */
export const PageNumberQuery = z.object({
  limit: Limit,
  cursor: z.coerce.number().int().min(1).max(1_000_000).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
});

/** Boolean in a query string: "true"/"false" only. */
export const QueryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");

/** A cursor-paged list (contacts, executions, emails, segment members): `cursor` is null on the last page. */
export const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), cursor: z.string().nullable(), hasMore: z.boolean() });

/** Any JSON value (contact data, execution context, webhook bodies). */
export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

const LINE_BREAK = /[\r\n]/;
/** Text that ends up in a mail header: a CR or LF would let a caller inject headers. */
export const singleLine = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !LINE_BREAK.test(s), { message: "must not contain CR or LF" });

/** A display name (`"Ada" <ada@example.com>`). */
export const DisplayName = singleLine(200);

/** `email` or `{email, name}`: the address forms of `to` and `from`. */
export const Mailbox = z.union([EmailAddress, z.object({ email: EmailAddress, name: DisplayName.optional() })]);
export type Mailbox = z.infer<typeof Mailbox>;

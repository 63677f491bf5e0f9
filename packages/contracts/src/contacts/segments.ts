import { z } from "zod";
import { defineRoute } from "../route.js";
import { CursorPageQuery, IdParams, cursorPage } from "../common.js";
import { FilterExpression } from "../filters.js";
import { Contact, Segment } from "./records.js";

const SegmentName = z.string().trim().min(1).max(200);

export const CreateSegmentRequest = z.object({
  name: SegmentName,
  filters: FilterExpression,
  trackMembership: z.boolean().default(false),
});
export type CreateSegmentRequest = z.infer<typeof CreateSegmentRequest>;

export const UpdateSegmentRequest = z.object({
  name: SegmentName.optional(),
  filters: FilterExpression.optional(),
  trackMembership: z.boolean().optional(),
});
export type UpdateSegmentRequest = z.infer<typeof UpdateSegmentRequest>;

export const SegmentList = z.array(Segment);
export type SegmentList = z.infer<typeof SegmentList>;

export const SegmentContactList = cursorPage(Contact);

/** How many contacts a filter matches now, before it is saved (a segment builder's or a campaign
 * audience's live count). Reads only, so a viewer may ask. */
export const CountFilterRequest = z.object({ filters: FilterExpression });
export type CountFilterRequest = z.infer<typeof CountFilterRequest>;
export const FilterCount = z.object({ count: z.number().int().nonnegative() });
export type FilterCount = z.infer<typeof FilterCount>;
export type SegmentContactList = z.infer<typeof SegmentContactList>;

const base = { service: "contacts", auth: "secret", tag: "Segments" } as const;

export const segmentRoutes = [
  defineRoute({
    ...base,
    method: "POST",
    path: "/segments/count",
    operation: "contacts.segments.count",
    summary: "Count the contacts a filter matches (nothing is saved)",
    role: "viewer",
    body: CountFilterRequest,
    response: FilterCount,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/segments",
    operation: "contacts.segments.list",
    summary: "List segments",
    response: SegmentList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/segments",
    operation: "contacts.segments.create",
    summary: "Create a segment",
    body: CreateSegmentRequest,
    response: Segment,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/segments/:id",
    operation: "contacts.segments.get",
    summary: "Get a segment",
    params: IdParams,
    response: Segment,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/segments/:id",
    operation: "contacts.segments.update",
    summary: "Update a segment",
    params: IdParams,
    body: UpdateSegmentRequest,
    response: Segment,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/segments/:id",
    operation: "contacts.segments.delete",
    summary: "Delete a segment",
    params: IdParams,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/segments/:id/contacts",
    operation: "contacts.segments.contacts",
    summary: "List a segment's members",
    params: IdParams,
    query: CursorPageQuery,
    response: SegmentContactList,
    status: 200,
  }),
];

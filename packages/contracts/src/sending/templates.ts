import { z } from "zod";
import { defineRoute } from "../route.js";
import { DisplayName, EmailAddress, IdParams, PageNumberQuery, Timestamp, pageShape } from "../common.js";
import { LiquidSource } from "../liquid-source.js";

export const TEMPLATE_TYPES = ["TRANSACTIONAL", "MARKETING"] as const;
export const TemplateType = z.enum(TEMPLATE_TYPES);
export type TemplateType = z.infer<typeof TemplateType>;

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  subject: z.string(),
  body: z.string(),
  type: TemplateType,
  from: z.string().nullable(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Template = z.infer<typeof Template>;

/** The subject is Liquid whose newlines are removed when rendered, so only its length is bounded here. */
const templateFields = {
  name: z.string().trim().min(1).max(200),
  subject: z.string().min(1).max(998),
  body: LiquidSource(),
  type: TemplateType,
  from: EmailAddress.nullable().optional(),
  fromName: DisplayName.nullable().optional(),
  replyTo: EmailAddress.nullable().optional(),
};

export const CreateTemplateRequest = z.object(templateFields);
export type CreateTemplateRequest = z.infer<typeof CreateTemplateRequest>;

export const UpdateTemplateRequest = z.object(templateFields).partial();
export type UpdateTemplateRequest = z.infer<typeof UpdateTemplateRequest>;

export const ListTemplatesQuery = PageNumberQuery.extend({
  type: TemplateType.optional(),
  search: z.string().max(200).optional(),
});
export type ListTemplatesQuery = z.infer<typeof ListTemplatesQuery>;

export const TemplateList = pageShape("templates", Template);
export type TemplateList = z.infer<typeof TemplateList>;

const base = { service: "sending", auth: "secret", tag: "Templates" } as const;

export const templateRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    path: "/templates",
    operation: "sending.templates.list",
    summary: "List templates",
    query: ListTemplatesQuery,
    response: TemplateList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/templates",
    operation: "sending.templates.create",
    summary: "Create a template",
    body: CreateTemplateRequest,
    response: Template,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/templates/:id",
    operation: "sending.templates.get",
    summary: "Get a template",
    params: IdParams,
    response: Template,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/templates/:id",
    operation: "sending.templates.update",
    summary: "Update a template",
    params: IdParams,
    body: UpdateTemplateRequest,
    response: Template,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/templates/:id",
    operation: "sending.templates.delete",
    summary: "Delete a template (409 INVALID_STATE while a workflow step uses it)",
    params: IdParams,
    status: 204,
  }),
];

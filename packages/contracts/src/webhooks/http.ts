import { z } from "zod";
import { defineRoute } from "../route.js";
import { CursorPageQuery, Id, IdParams, PageNumberQuery, cursorPage, pageShape } from "../common.js";
import { EventPattern, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint, WebhookEndpointWithSecret, WebhookUrl } from "./records.js";

const Events = z.array(EventPattern).min(1).max(50);
const Description = z.string().trim().max(500);

export const CreateWebhookRequest = z.object({
  url: WebhookUrl,
  events: Events,
  description: Description.optional(),
  enabled: z.boolean().optional(),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z.object({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: Description.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const WebhookList = pageShape("webhooks", WebhookEndpoint);
export type WebhookList = z.infer<typeof WebhookList>;

export const ListWebhookDeliveriesQuery = CursorPageQuery.extend({ status: WebhookDeliveryStatus.optional() });
export type ListWebhookDeliveriesQuery = z.infer<typeof ListWebhookDeliveriesQuery>;
export const WebhookDeliveryList = cursorPage(WebhookDelivery);
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

export const WebhookDeliveryParams = z.object({ id: Id, deliveryId: Id });

/** Owner only (decisions.md §16): an endpoint receives the project's mail events and holds a secret. */
const base = { service: "workflows", auth: "secret", role: "owner", tag: "Webhooks" } as const;

export const webhookRoutes = [
  defineRoute({
    ...base,
    method: "POST",
    path: "/webhooks",
    operation: "workflows.webhooks.create",
    summary: "Register a webhook endpoint; its signing secret is in this answer only",
    body: CreateWebhookRequest,
    response: WebhookEndpointWithSecret,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/webhooks",
    operation: "workflows.webhooks.list",
    summary: "List webhook endpoints",
    query: PageNumberQuery,
    response: WebhookList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/webhooks/:id",
    operation: "workflows.webhooks.get",
    summary: "Get a webhook endpoint",
    params: IdParams,
    response: WebhookEndpoint,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/webhooks/:id",
    operation: "workflows.webhooks.update",
    summary: "Change an endpoint's URL, events, description or enabled state",
    params: IdParams,
    body: UpdateWebhookRequest,
    response: WebhookEndpoint,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/webhooks/:id",
    operation: "workflows.webhooks.delete",
    summary: "Delete an endpoint and its deliveries",
    params: IdParams,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/webhooks/:id/rotate-secret",
    operation: "workflows.webhooks.rotateSecret",
    summary: "A new signing secret (in this answer only); the old one keeps signing beside it for 24 hours",
    params: IdParams,
    response: WebhookEndpointWithSecret,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/webhooks/:id/test",
    operation: "workflows.webhooks.test",
    summary: "Queue a webhook.test event to this endpoint",
    params: IdParams,
    response: WebhookDelivery,
    status: 202,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/webhooks/:id/deliveries",
    operation: "workflows.webhooks.deliveries.list",
    summary: "An endpoint's deliveries, newest first (kept 30 days)",
    params: IdParams,
    query: ListWebhookDeliveriesQuery,
    response: WebhookDeliveryList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/webhooks/:id/deliveries/:deliveryId/retry",
    operation: "workflows.webhooks.deliveries.retry",
    summary: "Send a delivery again now (a failed one gets a new round of retries)",
    params: WebhookDeliveryParams,
    response: WebhookDelivery,
    status: 202,
  }),
];

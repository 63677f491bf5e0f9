import { routeOf, type WebhookDelivery, type WebhookDeliveryStatus, webhookRoutes } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteInfiniteQuery } from "./infinite-query";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(webhookRoutes, "workflows.webhooks.list");
const get = routeOf(webhookRoutes, "workflows.webhooks.get");
const create = routeOf(webhookRoutes, "workflows.webhooks.create");
const update = routeOf(webhookRoutes, "workflows.webhooks.update");
const remove = routeOf(webhookRoutes, "workflows.webhooks.delete");
const rotate = routeOf(webhookRoutes, "workflows.webhooks.rotateSecret");
const test = routeOf(webhookRoutes, "workflows.webhooks.test");
const deliveries = routeOf(webhookRoutes, "workflows.webhooks.deliveries.list");
const retry = routeOf(webhookRoutes, "workflows.webhooks.deliveries.retry");

export const WEBHOOKS_PAGE_SIZE = 20;
export const DELIVERIES_PAGE_SIZE = 25;

/** Every /webhooks route is the owner's (decisions §16): `enabled` is false for other roles, who would get 403s. */
export function useWebhooks(page: number, enabled: boolean) {
  return useRouteQuery(list, { query: { page, limit: WEBHOOKS_PAGE_SIZE } }, { enabled, placeholderData: keepPreviousData });
}

export function useWebhook(id: string, enabled: boolean) {
  return useRouteQuery(get, { params: { id } }, { enabled });
}

export function useCreateWebhookMutation() {
  return useRouteMutation(create, [list]);
}

/** Enabling, disabling and editing show in the list and on the endpoint's page. */
export function useUpdateWebhookMutation() {
  return useRouteMutation(update, [list, get]);
}

export function useDeleteWebhookMutation() {
  return useRouteMutation(remove, [list]);
}

/** `previousSecretExpiresAt` changes: the endpoint's page says until when the old secret signs. */
export function useRotateSecretMutation() {
  return useRouteMutation(rotate, [get]);
}

export function useSendTestMutation() {
  return useRouteMutation(test, [deliveries]);
}

export function useRetryDeliveryMutation() {
  return useRouteMutation(retry, [deliveries]);
}

/** A delivery due within this long is worth watching closely; one due in hours is not. */
const SOON_MS = 60_000;

/**
 * How often the log refreshes: every 2 s while a shown delivery is about to be attempted (a test
 * event just sent, a retry), every 30 s while one waits for a later attempt, not at all once every
 * shown delivery has settled.
 */
export function deliveryPollMs(shown: readonly WebhookDelivery[], now = Date.now()): number | false {
  const pending = shown.filter((d) => d.status === "PENDING");
  if (pending.length === 0) return false;
  const soon = pending.some((d) => d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) - now < SOON_MS);
  return soon ? 2000 : 30_000;
}

/** An endpoint's deliveries, newest first, a page at a time ("Load more"). */
export function useDeliveries(id: string, status: WebhookDeliveryStatus | undefined) {
  return useRouteInfiniteQuery(
    deliveries,
    { params: { id }, query: { status, limit: DELIVERIES_PAGE_SIZE } },
    { refetchInterval: (data) => deliveryPollMs(data?.pages.flatMap((p) => p.data) ?? []) },
  );
}

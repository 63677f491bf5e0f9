import { type Campaign, type CampaignStatus, campaignRoutes, routeOf } from "@mailroom/contracts";
import { type Query, keepPreviousData } from "@tanstack/react-query";
import type { ApiError } from "./errors";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(campaignRoutes, "campaigns.list");
const get = routeOf(campaignRoutes, "campaigns.get");
const create = routeOf(campaignRoutes, "campaigns.create");
const update = routeOf(campaignRoutes, "campaigns.update");
const remove = routeOf(campaignRoutes, "campaigns.delete");
const send = routeOf(campaignRoutes, "campaigns.send");
const cancel = routeOf(campaignRoutes, "campaigns.cancel");
const test = routeOf(campaignRoutes, "campaigns.test");
const links = routeOf(campaignRoutes, "campaigns.links");
const checks = routeOf(campaignRoutes, "campaigns.checks");

export const CAMPAIGNS_PAGE_SIZE = 20;

export function useCampaigns(status: CampaignStatus | undefined, page: number) {
  return useRouteQuery(list, { query: { status, page, limit: CAMPAIGNS_PAGE_SIZE } }, { placeholderData: keepPreviousData });
}

/** The newest campaigns that have been sent or are sending, as choices for a filter (the Overview's). */
export function useCampaignOptions() {
  const sent = useRouteQuery(list, { query: { status: "SENT", page: 1, limit: 100 } });
  const sending = useRouteQuery(list, { query: { status: "SENDING", page: 1, limit: 100 } });
  const campaigns = [...(sending.data?.campaigns ?? []), ...(sent.data?.campaigns ?? [])];
  return { options: campaigns.map((c) => ({ value: c.id, label: c.name })), isPending: sent.isPending || sending.isPending };
}

/** `pollMs`: refetch this often (a campaign being sent, or about to start), or how often given what it is now; false: no polling. */
export function useCampaign(id: string | null, pollMs: number | false | ((q: Query<Campaign, ApiError>) => number | false) = false) {
  return useRouteQuery(get, { params: { id: id ?? "" } }, { enabled: id !== null, refetchInterval: pollMs });
}

export function useCampaignLinks(id: string, pollMs: number | false = false) {
  return useRouteQuery(links, { params: { id } }, { refetchInterval: pollMs });
}

/**
 * The pre-send checks of the saved campaign (decisions.md §18). They look DNS up live, so they are
 * not refetched on focus; a save asks again, and so does `refetch` (a record just published).
 */
export function useCampaignChecks(id: string) {
  return useRouteQuery(checks, { params: { id } }, { refetchOnWindowFocus: false, staleTime: 60_000 });
}

export function useCreateCampaignMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateCampaignMutation() {
  return useRouteMutation(update, [list, get, checks]);
}

export function useDeleteCampaignMutation() {
  return useRouteMutation(remove, [list]);
}

export function useSendCampaignMutation() {
  return useRouteMutation(send, [list, get]);
}

export function useCancelCampaignMutation() {
  return useRouteMutation(cancel, [list, get]);
}

export function useTestCampaignMutation() {
  return useRouteMutation(test);
}

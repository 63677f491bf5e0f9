import { emailRoutes, routeOf } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(emailRoutes, "sending.domains.list");
const get = routeOf(emailRoutes, "sending.domains.get");
const create = routeOf(emailRoutes, "sending.domains.create");
const verify = routeOf(emailRoutes, "sending.domains.verify");
const update = routeOf(emailRoutes, "sending.domains.update");
const remove = routeOf(emailRoutes, "sending.domains.delete");

export function useDomains() {
  return useRouteQuery(list, {});
}

export function useDomain(id: string | null) {
  return useRouteQuery(get, { params: { id: id ?? "" } }, { enabled: id !== null });
}

export function useCreateDomainMutation() {
  return useRouteMutation(create, [list]);
}

/** A lookup changes the domain's status and each record's `found`: both the list and the domain refetch. */
export function useVerifyDomainMutation() {
  return useRouteMutation(verify, [list, get]);
}

/** Warm-up on or off: the list and the domain refetch. */
export function useUpdateDomainMutation() {
  return useRouteMutation(update, [list, get]);
}

export function useDeleteDomainMutation() {
  return useRouteMutation(remove, [list]);
}

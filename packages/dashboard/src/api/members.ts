import { accountRoutes, routeOf } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";
import { useCurrentProject } from "./session";

/*
 * The pattern for a resource: take its routes from the contracts once, then one hook per read
 * (`useX`) and per change (`useXMutation`) naming which reads it makes stale. Pages import these
 * hooks and never a route or a URL.
 */
const list = routeOf(accountRoutes, "gateway.members.list");
const invite = routeOf(accountRoutes, "gateway.members.invite");
const update = routeOf(accountRoutes, "gateway.members.update");
const remove = routeOf(accountRoutes, "gateway.members.remove");

export function useMembers() {
  const project = useCurrentProject();
  return useRouteQuery(list, { params: { id: project?.id ?? "" } }, { enabled: project !== null });
}

export function useInviteMemberMutation() {
  return useRouteMutation(invite, [list]);
}

export function useUpdateMemberMutation() {
  return useRouteMutation(update, [list]);
}

export function useRemoveMemberMutation() {
  return useRouteMutation(remove, [list]);
}

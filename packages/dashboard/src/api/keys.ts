import { accountRoutes, routeOf } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";
import { useCurrentProject } from "./session";

const list = routeOf(accountRoutes, "gateway.keys.list");
const create = routeOf(accountRoutes, "gateway.keys.create");
const revoke = routeOf(accountRoutes, "gateway.keys.revoke");

export function useKeys(enabled = true) {
  const project = useCurrentProject();
  return useRouteQuery(list, { params: { id: project?.id ?? "" } }, { enabled: enabled && project !== null });
}

export function useCreateKeyMutation() {
  return useRouteMutation(create, [list]);
}

export function useRevokeKeyMutation() {
  return useRouteMutation(revoke, [list]);
}

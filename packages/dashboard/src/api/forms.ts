import { formRoutes, routeOf } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(formRoutes, "contacts.forms.list");
const create = routeOf(formRoutes, "contacts.forms.create");
const update = routeOf(formRoutes, "contacts.forms.update");
const remove = routeOf(formRoutes, "contacts.forms.delete");

export function useForms() {
  return useRouteQuery(list, {});
}

export function useCreateFormMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateFormMutation() {
  return useRouteMutation(update, [list]);
}

export function useDeleteFormMutation() {
  return useRouteMutation(remove, [list]);
}

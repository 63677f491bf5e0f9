import { type ListTemplatesQuery, routeOf, sendRoutes, templateRoutes } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(templateRoutes, "sending.templates.list");
const get = routeOf(templateRoutes, "sending.templates.get");
const create = routeOf(templateRoutes, "sending.templates.create");
const update = routeOf(templateRoutes, "sending.templates.update");
const remove = routeOf(templateRoutes, "sending.templates.delete");
const send = routeOf(sendRoutes, "sending.send");

export function useTemplates(query: Partial<ListTemplatesQuery>) {
  return useRouteQuery(list, { query }, { placeholderData: (previous) => previous });
}

export function useTemplate(id: string | null) {
  return useRouteQuery(get, { params: { id: id ?? "" } }, { enabled: id !== null });
}

export function useCreateTemplateMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateTemplateMutation() {
  return useRouteMutation(update, [list, get]);
}

export function useDeleteTemplateMutation() {
  return useRouteMutation(remove, [list]);
}

/** A test send of a saved template (POST /v1/send with `template`). */
export function useSendTestMutation() {
  return useRouteMutation(send);
}

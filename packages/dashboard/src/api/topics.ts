import { routeOf, topicRoutes } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(topicRoutes, "contacts.topics.list");
const create = routeOf(topicRoutes, "contacts.topics.create");
const update = routeOf(topicRoutes, "contacts.topics.update");
const remove = routeOf(topicRoutes, "contacts.topics.delete");

export function useTopics() {
  return useRouteQuery(list, {});
}

export function useCreateTopicMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateTopicMutation() {
  return useRouteMutation(update, [list]);
}

export function useDeleteTopicMutation() {
  return useRouteMutation(remove, [list]);
}

import { routeOf, settingsRoutes } from "@mailroom/contracts";
import { useRouteMutation, useRouteQuery } from "./query";

const get = routeOf(settingsRoutes, "sending.settings.get");
const update = routeOf(settingsRoutes, "sending.settings.update");

export function useSendingSettings() {
  return useRouteQuery(get, {});
}

export function useUpdateSendingSettingsMutation() {
  return useRouteMutation(update, [get]);
}

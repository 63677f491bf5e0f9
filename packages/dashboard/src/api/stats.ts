import { routeOf, statsRoutes } from "@mailroom/contracts";
import { useRouteQuery } from "./query";

const stats = routeOf(statsRoutes, "sending.stats");

/** Daily counts over [from, to]; the bounds are fixed by the caller so the query key stays stable. */
export function useDailyStats(from: string, to: string) {
  return useRouteQuery(stats, { query: { from, to, interval: "day" } });
}

/** A campaign's counts per hour over [from, to] (the bounds fixed by the caller, as above). */
export function useCampaignHourlyStats(campaignId: string, from: string, to: string, pollMs: number | false = false) {
  return useRouteQuery(stats, { query: { from, to, interval: "hour", campaignId } }, { refetchInterval: pollMs });
}

import { routeOf, type StatsQuery, statsRoutes } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteQuery } from "./query";

const stats = routeOf(statsRoutes, "sending.stats");

/**
 * Counts per hour or day over [from, to], for the project or one campaign. The bounds are fixed by
 * the caller so the query key stays stable; the last answer stays on screen while a new choice loads.
 */
export function useStats(query: StatsQuery) {
  return useRouteQuery(stats, { query }, { placeholderData: keepPreviousData });
}

/** A campaign's counts per hour over [from, to] (the bounds fixed by the caller, as above). */
export function useCampaignHourlyStats(campaignId: string, from: string, to: string, pollMs: number | false = false) {
  return useRouteQuery(stats, { query: { from, to, interval: "hour", campaignId } }, { refetchInterval: pollMs });
}

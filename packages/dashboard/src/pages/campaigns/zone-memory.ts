import { localZone } from "../../lib/zones";

/**
 * The time zone a campaign was scheduled in. The API stores the instant in UTC only, so the zone the
 * person chose is kept in this browser, to show the schedule as it was picked.
 */
const key = (id: string) => `mailroom.campaign-zone.${id}`;

export function rememberZone(id: string, zone: string): void {
  try {
    localStorage.setItem(key(id), zone);
  } catch {
    // storage unavailable (private mode): the local zone is shown instead
  }
}

export function zoneOf(id: string): string {
  try {
    return localStorage.getItem(key(id)) ?? localZone();
  } catch {
    return localZone();
  }
}

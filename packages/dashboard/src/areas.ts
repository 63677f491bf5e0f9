import type { QueryClient } from "@tanstack/react-query";
import type { ComponentType } from "react";
import { prefetchContacts } from "./api/contacts";

export type PageModule = { default: ComponentType };

export interface Area {
  /** `/app/<path>` */
  path: string;
  label: string;
  /** Its code, loaded by the router when the area is first visited, so the sign-in page's JavaScript stays small. */
  load: () => Promise<PageModule>;
  /**
   * Starts the area's first query at start, beside its code, when it has one worth starting early.
   * Imported statically: waiting for a chunk first would start the query later than the session's.
   */
  prefetch?: (client: QueryClient) => void;
}

function area(path: string, label: string, load: () => Promise<PageModule>, prefetch?: Area["prefetch"]): Area {
  return { path, label, load, ...(prefetch ? { prefetch } : {}) };
}

/** The menu, in order: one folder per area under src/pages/. */
export const AREAS: readonly Area[] = [
  area("overview", "Overview", () => import("./pages/overview/index")),
  area("contacts", "Contacts", () => import("./pages/contacts/index"), prefetchContacts),
  area("segments", "Segments", () => import("./pages/segments/index")),
  area("topics", "Topics", () => import("./pages/topics/index")),
  area("forms", "Forms", () => import("./pages/forms/index")),
  area("campaigns", "Campaigns", () => import("./pages/campaigns/index")),
  area("workflows", "Workflows", () => import("./pages/workflows/index")),
  area("templates", "Templates", () => import("./pages/templates/index")),
  area("emails", "Emails", () => import("./pages/emails/index")),
  area("domains", "Domains", () => import("./pages/domains/index")),
  area("webhooks", "Webhooks", () => import("./pages/webhooks/index")),
  area("api-keys", "API keys", () => import("./pages/api-keys/index")),
  area("members", "Members", () => import("./pages/members/index")),
  area("settings", "Settings", () => import("./pages/settings/index")),
];

/** The area `/app/<path>…` belongs to (pathname as the browser has it, with the /app base). */
export function areaOf(pathname: string): Area | undefined {
  const first = pathname.replace(/^\/app\/?/, "").split("/")[0];
  return AREAS.find((a) => a.path === first);
}

import type { QueryClient } from "@tanstack/react-query";
import { type ComponentType, type LazyExoticComponent, lazy } from "react";

export interface Area {
  /** `/app/<path>` */
  path: string;
  label: string;
  /** Loaded when first visited, so the sign-in page's JavaScript stays small. */
  Page: LazyExoticComponent<ComponentType>;
  /** Its code, fetched at start when the app opens on this area (the module cache shares it with Page). */
  load: () => Promise<unknown>;
  /** Starts the area's first query at start, beside its code, when it has one worth starting early. */
  prefetch?: (client: QueryClient) => Promise<void>;
}

function area(path: string, label: string, load: () => Promise<{ default: ComponentType }>, prefetch?: Area["prefetch"]): Area {
  return { path, label, Page: lazy(load), load, ...(prefetch ? { prefetch } : {}) };
}

/** The menu, in order: one folder per area under src/pages/. */
export const AREAS: readonly Area[] = [
  area("overview", "Overview", () => import("./pages/overview/index")),
  area("contacts", "Contacts", () => import("./pages/contacts/index"), async (client) => (await import("./api/contacts")).prefetchContacts(client)),
  area("templates", "Templates", () => import("./pages/templates/index")),
  area("emails", "Emails", () => import("./pages/emails/index")),
  area("workflows", "Workflows", () => import("./pages/workflows/index")),
  area("domains", "Domains", () => import("./pages/domains/index")),
  area("api-keys", "API keys", () => import("./pages/api-keys/index")),
  area("members", "Members", () => import("./pages/members/index")),
  area("settings", "Settings", () => import("./pages/settings/index")),
];

/** The area `/app/<path>…` belongs to (pathname as the browser has it, with the /app base). */
export function areaOf(pathname: string): Area | undefined {
  const first = pathname.replace(/^\/app\/?/, "").split("/")[0];
  return AREAS.find((a) => a.path === first);
}

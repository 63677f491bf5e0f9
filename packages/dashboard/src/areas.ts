import { type ComponentType, type LazyExoticComponent, lazy } from "react";

export interface Area {
  /** `/app/<path>` */
  path: string;
  label: string;
  /** Loaded when first visited, so the sign-in page's JavaScript stays small. */
  Page: LazyExoticComponent<ComponentType>;
}

/** The menu, in order: one folder per area under src/pages/. */
export const AREAS: readonly Area[] = [
  { path: "overview", label: "Overview", Page: lazy(() => import("./pages/overview/index")) },
  { path: "contacts", label: "Contacts", Page: lazy(() => import("./pages/contacts/index")) },
  { path: "templates", label: "Templates", Page: lazy(() => import("./pages/templates/index")) },
  { path: "emails", label: "Emails", Page: lazy(() => import("./pages/emails/index")) },
  { path: "domains", label: "Domains", Page: lazy(() => import("./pages/domains/index")) },
  { path: "api-keys", label: "API keys", Page: lazy(() => import("./pages/api-keys/index")) },
  { path: "members", label: "Members", Page: lazy(() => import("./pages/members/index")) },
  { path: "settings", label: "Settings", Page: lazy(() => import("./pages/settings/index")) },
];

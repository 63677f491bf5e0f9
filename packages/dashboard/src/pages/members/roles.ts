import { ROLES, type Role } from "@mailroom/contracts";

/** What each role may do, as the Members page explains it (decisions.md §13). */
export const ROLE_LABELS: Record<Role, string> = {
  owner: "Owner: everything, including members, keys, domains and settings",
  editor: "Editor: contacts, templates, campaigns, segments, workflows, sending",
  viewer: "Viewer: read only",
};

/** The roles as a select offers them. */
export const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r[0]!.toUpperCase() + r.slice(1) }));

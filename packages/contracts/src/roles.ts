import { z } from "zod";

/** What a member may do in a project (decisions.md §13). owner ⊃ editor ⊃ viewer. */
export const ROLES = ["owner", "editor", "viewer"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Whether `role` includes everything `needed` may do. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

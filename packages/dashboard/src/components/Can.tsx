import { type Role, roleAllows } from "@mailroom/contracts";
import type { ReactNode } from "react";
import { useRole } from "../api/session";

/** Whether the user's role in the current project includes `role` (false while unknown). */
export function useCan(role: Role): boolean {
  const mine = useRole();
  return mine !== null && roleAllows(mine, role);
}

/**
 * Shows its children only to a role that includes `role`: hides what would be refused anyway (the
 * gateway enforces roles; this only spares a viewer buttons that answer 403).
 */
export function Can({ role, children, fallback = null }: { role: Role; children: ReactNode; fallback?: ReactNode }) {
  return useCan(role) ? children : fallback;
}

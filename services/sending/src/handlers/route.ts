import type { RouteDef } from "@mailroom/contracts";

/** The route of `operation` from a contract list, keeping its exact type for the handler. */
export function routeOf<const R extends RouteDef, O extends R["operation"]>(routes: readonly R[], operation: O): Extract<R, { operation: O }> {
  const found = routes.find((r) => r.operation === operation);
  if (!found) throw new Error(`no route ${operation} in the contracts`);
  return found as Extract<R, { operation: O }>;
}

import { accountRoutes, type ProjectMembership, type Role, routeOf, type SessionInfo } from "@mailroom/contracts";
import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "./client";
import type { ApiError } from "./errors";
import { pickProject } from "./project";
import { useProjectId } from "./query";

const login = routeOf(accountRoutes, "gateway.auth.login");
const logout = routeOf(accountRoutes, "gateway.auth.logout");
const logoutEverywhere = routeOf(accountRoutes, "gateway.auth.logoutEverywhere");
const me = routeOf(accountRoutes, "gateway.auth.me");
const acceptInvitation = routeOf(accountRoutes, "gateway.auth.acceptInvitation");

/** Not per project: the session's user and every project they belong to. */
export const ME_KEY = ["gateway.auth.me"] as const;

/** Marks a mutation whose 401 is the answer to show (a wrong password), not an expired session. */
export const AUTH_FORM = { authForm: true } as const;

const meQuery = { queryKey: ME_KEY, queryFn: () => request(me), staleTime: 60_000 };

export function useMe() {
  return useQuery<SessionInfo, ApiError>(meQuery);
}

/** Asks for the session before the shell that reads it has loaded (main.tsx). */
export function prefetchMe(client: QueryClient): void {
  void client.prefetchQuery(meQuery);
}

/** Signing in (or accepting an invitation) answers the session: it becomes `useMe`'s data at once. */
function useSignInMutation<I>(call: (input: I) => Promise<SessionInfo>) {
  const client = useQueryClient();
  return useMutation<SessionInfo, ApiError, I>({
    mutationFn: call,
    meta: AUTH_FORM,
    onSuccess: (info) => {
      client.clear();
      client.setQueryData(ME_KEY, info);
    },
  });
}

export function useLogin() {
  return useSignInMutation((body: { email: string; password: string }) => request(login, { body }));
}

export function useAcceptInvitation() {
  return useSignInMutation((body: { token: string; name: string; password?: string }) => request(acceptInvitation, { body }));
}

/** Signing out here, or (`everywhere`) ending every session of the user, on every device. */
export function useLogout(opts: { everywhere?: boolean } = {}) {
  const client = useQueryClient();
  return useMutation<undefined, ApiError, void>({
    mutationFn: () => request(opts.everywhere ? logoutEverywhere : logout),
    meta: AUTH_FORM,
    // Whatever the server said, nothing of the old session stays on screen.
    onSettled: () => client.clear(),
  });
}

/** The membership the dashboard acts on: the remembered project, else the user's first. */
export function useCurrentProject(): ProjectMembership | null {
  const { data } = useMe();
  const remembered = useProjectId();
  return data ? pickProject(data.projects, remembered) : null;
}

/** The user's role in the current project (null while unknown): for hiding, not for enforcing. */
export function useRole(): Role | null {
  return useCurrentProject()?.role ?? null;
}

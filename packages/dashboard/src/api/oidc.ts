import { useQuery } from "@tanstack/react-query";

/** The gateway's OpenID Connect entry point, there only when OIDC_* is configured (decisions.md §13). */
export const OIDC_START = "/auth/oidc/start";

/**
 * Whether single sign-on is configured: the start route exists (anything but a 404). Asked without
 * following the redirect to the identity provider, which the browser's fetch could not read anyway.
 */
export function useSsoAvailable(): boolean {
  const { data } = useQuery({
    queryKey: ["oidc.available"],
    queryFn: async () => {
      const res = await fetch(OIDC_START, { method: "GET", redirect: "manual", credentials: "same-origin" });
      return res.type === "opaqueredirect" || (res.status !== 404 && res.status !== 0);
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  return data === true;
}

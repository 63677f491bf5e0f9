import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "./errors";

/**
 * One client for the app. A 401 from any query, or from a mutation other than the sign-in forms,
 * means the session is gone: `onSignedOut` takes the user to sign in (and back afterwards).
 */
export function createQueryClient(onSignedOut: () => void): QueryClient {
  const expired = (err: unknown) => err instanceof ApiError && err.status === 401;
  return new QueryClient({
    queryCache: new QueryCache({ onError: (err) => expired(err) && onSignedOut() }),
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        if (expired(err) && !mutation.options.meta?.authForm) onSignedOut();
      },
    }),
    defaultOptions: {
      queries: {
        // Retrying a 4xx only repeats the same refusal; a 5xx or a dropped connection may pass.
        retry: (count, err) => count < 2 && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500),
        refetchOnWindowFocus: false,
      },
    },
  });
}

import postgres from "postgres";
import { PROJECT_HEADER, SESSION_COOKIE } from "@mailroom/contracts";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { DATABASE_URL, apiClient, type ApiResponse, type Platform } from "@mailroom/testkit";

/** The `mailroom_session=…` pair of a Set-Cookie answer, as a browser would send it back. */
export function sessionCookie(res: ApiResponse): string {
  const set = res.headers.get("set-cookie") ?? "";
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(set);
  if (!m?.[1]) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return `${SESSION_COOKIE}=${m[1]}`;
}

export async function login(platform: Platform, email: string, password: string): Promise<ApiResponse> {
  return apiClient(platform.url).post("/auth/login", { email, password });
}

/** A browser signed in as `email`: each call carries the cookie and, when given, the project header. */
export async function signedIn(platform: Platform, email: string, password: string) {
  const res = await login(platform, email, password);
  if (res.status !== 200) throw new Error(`sign-in as ${email} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return browser(platform, sessionCookie(res));
}

export function browser(platform: Platform, cookie: string) {
  const api = apiClient(platform.url);
  const headers = (projectId?: string, extra: Record<string, string> = {}) => ({
    cookie,
    ...(projectId ? { [PROJECT_HEADER]: projectId } : {}),
    ...extra,
  });
  return {
    cookie,
    get: (path: string, projectId?: string, extra?: Record<string, string>) => api.get(path, headers(projectId, extra)),
    post: (path: string, body: unknown, projectId?: string, extra?: Record<string, string>) => api.post(path, body, headers(projectId, extra)),
    patch: (path: string, body: unknown, projectId?: string, extra?: Record<string, string>) => api.patch(path, body, headers(projectId, extra)),
    delete: (path: string, projectId?: string, extra?: Record<string, string>) => api.delete(path, headers(projectId, extra)),
  };
}
export type Browser = ReturnType<typeof browser>;

/** What `mailroom users create` does, in this process (the CLI's own test spawns it: cliCreateUser). */
export async function createUser(platform: Platform, email: string, projectId: string, role: "owner" | "editor" | "viewer", password?: string) {
  return (await platform.operator()).createUser({ email, projectId, role, password });
}

/** `mailroom users create`, run as the operator runs it, parsed. */
export async function cliCreateUser(platform: Platform, email: string, projectId: string, role: string, password?: string) {
  const args = ["users", "create", "--email", email, "--project", projectId, "--role", role, "--json"];
  return JSON.parse(await platform.cli(password ? [...args, "--password", password] : args));
}

export function gatewayDb(platform: Platform): postgres.Sql {
  return postgres(serviceDatabaseUrl(DATABASE_URL, platform.prefix, "gateway"), { max: 2, onnotice: () => undefined });
}

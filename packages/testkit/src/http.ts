export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small client for the gateway, the way an API user would call it. */
export function apiClient(baseUrl: string, key?: string) {
  async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...headers };
    if (key && !("authorization" in h)) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      h["content-type"] ??= "application/json";
    }
    const res = await fetch(new URL(path, baseUrl), { method, headers: h, body: payload, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>("GET", path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>("POST", path, body ?? {}, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>("PATCH", path, body ?? {}, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>("DELETE", path, undefined, headers),
    call,
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

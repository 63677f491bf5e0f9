import { PROJECT_HEADER, type RouteDef } from "@mailroom/contracts";
import type { z } from "zod";
import { ApiError } from "./errors";
import { projectStore } from "./project";

type Part<K extends string, S> = S extends z.ZodType ? { [P in K]: z.input<S> } : { [P in K]?: never };

/** What a route takes: its params, query and body, typed by the route's own schemas. */
export type RouteInput<R extends RouteDef> = Part<"params", R["params"]> & Part<"query", R["query"]> & Part<"body", R["body"]>;
/** What a route answers, as its response schema parses it (nothing for a 204). */
export type RouteOutput<R extends RouteDef> = R["response"] extends z.ZodType ? z.output<R["response"]> : undefined;

/** `/projects/:id/members` with `{id: "p1"}` → `/projects/p1/members` (each value URL-encoded). */
export function buildPath(path: string, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}): string {
  const filled = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === "") throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === "") continue;
    for (const one of Array.isArray(v) ? v : [v]) search.append(k, String(one));
  }
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/**
 * The one way the dashboard talks to the API: the route from the contracts decides the method, the
 * URL and how the answer is parsed, so a page never builds a URL or trusts an unchecked body. The
 * session cookie goes along (same origin) and the current project rides in its header.
 */
export async function request<R extends RouteDef>(route: R, input: RouteInput<R> = {} as RouteInput<R>): Promise<RouteOutput<R>> {
  const { body } = input as { body?: unknown };
  const res = await send(route, input, body === undefined ? undefined : { data: JSON.stringify(body), contentType: "application/json" });
  return parseAnswer(route, res);
}

/**
 * An `upload` route's call: the file is the body as it is (the browser streams it from disk), sent
 * as the route's first content type — a .csv picked on Windows often says application/vnd.ms-excel,
 * which the gateway would refuse.
 */
export async function upload<R extends RouteDef>(route: R, input: RouteInput<R>, file: Blob): Promise<RouteOutput<R>> {
  const contentType = route.upload?.contentTypes[0];
  if (!contentType) throw new Error(`${route.method} ${route.path} takes no file`);
  return parseAnswer(route, await send(route, input, { data: file, contentType }));
}

/**
 * A `rawResponse` route's call (a CSV export): the answer unread, so its body can be streamed to
 * where it goes. A refusal is read and thrown as any other.
 */
export async function download<R extends RouteDef>(route: R, input: RouteInput<R> = {} as RouteInput<R>): Promise<Response> {
  if (!route.rawResponse) throw new Error(`${route.method} ${route.path} answers JSON`);
  const res = await send(route, input);
  if (!res.ok) await parseAnswer(route, res);
  return res;
}

async function send(route: RouteDef, input: unknown, body?: { data: BodyInit; contentType: string }): Promise<Response> {
  const { params, query } = input as { params?: Record<string, unknown>; query?: Record<string, unknown> };
  // A raw answer's route still answers a refusal in JSON.
  const headers: Record<string, string> = { accept: route.rawResponse ? `${route.rawResponse.contentType}, application/json` : "application/json" };
  const project = projectStore.get();
  if (project) headers[PROJECT_HEADER] = project;
  if (body) headers["content-type"] = body.contentType;
  try {
    return await fetch(buildPath(route.path, params, query), { method: route.method, headers, credentials: "same-origin", body: body?.data });
  } catch (err) {
    throw ApiError.network(err);
  }
}

/** The answer's JSON checked against the route's response schema, or the refusal as an ApiError. */
async function parseAnswer<R extends RouteDef>(route: R, res: Response): Promise<RouteOutput<R>> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw ApiError.fromResponse(res.status, json, res.headers.get("retry-after"));
  if (!route.response) return undefined as RouteOutput<R>;
  const parsed = route.response.safeParse(json);
  // An answer that does not match the contract is a bug on one side; say so instead of rendering junk.
  if (!parsed.success) throw new ApiError(res.status, "INTERNAL_ERROR", `Unexpected answer from ${route.method} ${route.path}`);
  return parsed.data as RouteOutput<R>;
}

import { sharedPlatform } from "@mailroom/testkit/shared";

export type JsonSchema = Record<string, any>;

/** One operation of the served OpenAPI document: what the suites iterate over. */
export interface Operation {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** OpenAPI style: `/contacts/{id}` */
  path: string;
  operationId: string;
  /** Needs a key (any route but the public links and the SES webhook). */
  secured: boolean;
  /** The document says a pk_ key is accepted too. */
  acceptsPublicKey: boolean;
  pathParams: string[];
  queryParams: Array<{ name: string; required: boolean; schema: JsonSchema }>;
  body: JsonSchema | undefined;
  /** The success answer is not JSON (pixel, redirect, page). */
  raw: boolean;
}

export interface ApiDocument {
  doc: JsonSchema;
  operations: Operation[];
  /** `#/components/schemas/X` → schema */
  resolve(ref: string): JsonSchema;
}

const METHODS = ["get", "post", "patch", "put", "delete"] as const;

/** Reads the document the running gateway serves, so a route that lands later is covered without edits here. */
export async function loadApi(baseUrl = sharedPlatform().url): Promise<ApiDocument> {
  const res = await fetch(new URL("/openapi.json", baseUrl));
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as JsonSchema;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, JsonSchema>)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      // These proofs are of the API a key holder reaches; the routes for a signed-in session only
      // (sign-in, members, keys: decisions.md §13) are proven by the gateway's session tests.
      const security = (op.security ?? doc.security ?? []) as Array<Record<string, unknown>>;
      if (security.length > 0 && !security.some((s) => "bearerAuth" in s)) continue;
      if (path.startsWith("/auth/")) continue;
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema: JsonSchema }>;
      const success = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith("2"))?.[1] as JsonSchema | undefined;
      operations.push({
        method: m.toUpperCase() as Operation["method"],
        path,
        operationId: op.operationId,
        secured: (op.security ?? doc.security ?? []).length > 0,
        acceptsPublicKey: /\bpk_/.test(op.description ?? ""),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required, schema: p.schema })),
        body: op.requestBody?.content?.["application/json"]?.schema,
        raw: !!success?.content && !success.content["application/json"],
      });
    }
  }
  const resolve = (ref: string) => {
    const name = ref.replace("#/components/schemas/", "");
    const s = doc.components?.schemas?.[name];
    if (!s) throw new Error(`unresolved ${ref}`);
    return s as JsonSchema;
  };
  return { doc, operations, resolve };
}

export const label = (op: Pick<Operation, "method" | "path">) => `${op.method} ${op.path}`;

/** `/workflows/{id}/steps/{stepId}` with `{id: …, stepId: …}` (values URL-encoded). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(v);
  });
}

/**
 * The collection a path parameter names: the static segment before it (`/workflows/{id}/steps/{stepId}`:
 * id → workflows, stepId → steps). Fixtures register their ids under these names.
 */
export function collectionsOf(path: string): Record<string, string> {
  const parts = path.split("/").filter(Boolean);
  const out: Record<string, string> = {};
  parts.forEach((part, i) => {
    const m = /^\{(.+)\}$/.exec(part);
    if (m) out[m[1]!] = parts[i - 1] ?? "";
  });
  return out;
}

/** A 503 because nothing serves the operation yet (its service is not built): such routes are skipped, not failed. */
export function notBuilt(res: { status: number; body: any }): boolean {
  return res.status === 503 && res.body?.error === "SERVICE_UNAVAILABLE" && /not running/i.test(String(res.body?.message));
}

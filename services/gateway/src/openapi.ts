import { z } from "zod";
import {
  ErrorBody,
  ERROR_STATUS,
  PROJECT_HEADER,
  SESSION_COOKIE,
  WEBHOOK_EVENT_PAYLOADS,
  WEBHOOK_HEADERS,
  bodyLimitOf,
  requiredRole,
  type RouteDef,
} from "@mailroom/contracts";

type JsonSchema = Record<string, unknown>;

/**
 * zod emits shared and recursive parts as `$defs` with `#/$defs/…` refs, which only resolve inside
 * a standalone schema. In the document they move to `components.schemas` under unique names.
 */
function converter(components: Record<string, JsonSchema>) {
  let counter = 0;
  return function schemaOf(type: z.ZodType, io: "input" | "output"): JsonSchema {
    const converted = z.toJSONSchema(type, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
    const { $schema: _ignored, $defs, ...rest } = converted as JsonSchema & { $defs?: Record<string, JsonSchema> };
    if (!$defs) return rest;
    const names = new Map(Object.keys($defs).map((k) => [k, `Def${counter++}_${k.replace(/[^A-Za-z0-9_.-]/g, "_")}`]));
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== "object") return node;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
          ? `#/components/schemas/${names.get(v.slice(8))}`
          : rewrite(v);
      }
      return out;
    };
    for (const [k, v] of Object.entries($defs)) components[names.get(k)!] = rewrite(v) as JsonSchema;
    return rewrite(rest) as JsonSchema;
  };
}

const takesBody = (route: RouteDef) => route.method === "POST" || route.method === "PUT" || route.method === "PATCH";

/** 65536 → "64 KB", 2097152 → "2 MB". */
function size(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number(mb.toFixed(1))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** `/contacts/:id` → `/contacts/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(schemaOf: ReturnType<typeof converter>, obj: z.ZodObject | undefined, where: "path" | "query") {
  if (!obj) return [];
  const schema = schemaOf(obj, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (schema.required ?? []).includes(name),
    schema: s,
  }));
}

/** Keys, or the dashboard's session cookie with the project header (decisions.md §13). */
function securityOf(route: RouteDef): Array<Record<string, never[]>> {
  if (route.auth === "none") return [];
  if (route.auth === "session") return [{ sessionCookie: [] }];
  return [{ bearerAuth: [] }, { sessionCookie: [] }];
}

const errorRef = { $ref: "#/components/schemas/Error" };

function errorResponses(route: RouteDef): Record<string, unknown> {
  const statuses = new Set<number>([400, 429, 500, 503]);
  if (route.auth !== "none") statuses.add(401).add(403);
  if (route.params) statuses.add(404);
  if (route.idempotent) statuses.add(409);
  if (route.body || takesBody(route)) statuses.add(413);
  const out: Record<string, unknown> = {};
  for (const s of [...statuses].sort()) {
    const names = Object.entries(ERROR_STATUS)
      .filter(([, v]) => v === s)
      .map(([k]) => k);
    out[String(s)] = { description: names.join(" or "), content: { "application/json": { schema: errorRef } } };
  }
  return out;
}

/** OpenAPI 3.1's `webhooks`: what an endpoint registered with POST /webhooks receives, per event type. */
function webhooksOf(schemaOf: ReturnType<typeof converter>): Record<string, unknown> {
  const parameters = Object.entries(WEBHOOK_HEADERS).map(([name, description]) => ({ name, in: "header", required: true, description, schema: { type: "string" } }));
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENT_PAYLOADS).map(([type, payload]) => [
      type,
      {
        post: {
          summary: `${type}, as POSTed to your endpoint`,
          description: "Signed as Standard Webhooks specifies (verify with the standardwebhooks package). Any 2xx within 10 s is delivered; otherwise retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. 410 disables the endpoint.",
          parameters,
          requestBody: { required: true, content: { "application/json": { schema: schemaOf(payload, "output") } } },
          responses: { "2XX": { description: "Delivered" }, "410": { description: "The endpoint is gone: Mailroom disables it" } },
        },
      },
    ]),
  );
}

/** OpenAPI 3.1 from the route contracts: the document can never disagree with what is validated. */
export function buildOpenApi(routes: readonly RouteDef[], serverUrl: string): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const schemaOf = converter(components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const p = openApiPath(route.path);
    const success: Record<string, unknown> = route.rawResponse
      ? { description: route.rawResponse.description, content: { [route.rawResponse.contentType]: {} } }
      : route.response
        ? { description: "Success", content: { "application/json": { schema: schemaOf(route.response, "output") } } }
        : { description: "Success, no content" };
    const op: Record<string, unknown> = {
      operationId: route.operation,
      summary: route.summary,
      tags: [route.tag],
      security: securityOf(route),
      parameters: [
        ...parameters(schemaOf, route.params, "path"),
        ...parameters(schemaOf, route.query, "query"),
        ...(route.idempotent
          ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }]
          : []),
      ],
      responses: { [String(route.status)]: success, ...errorResponses(route) },
    };
    const limit = `The body may be at most ${size(bodyLimitOf(route))} (larger: 413 before it is read).`;
    if (route.body) {
      op.requestBody = { required: true, description: limit, content: { "application/json": { schema: schemaOf(route.body, "input") } } };
    } else if (route.upload) {
      const file = { type: "string", contentMediaType: route.upload.contentTypes[0] };
      op.requestBody = { required: true, description: limit, content: Object.fromEntries(route.upload.contentTypes.map((t) => [t, { schema: file }])) };
    }
    const notes = [
      ...(route.auth === "any" ? ["Accepts a secret (sk_) or a public (pk_) key."] : []),
      ...(route.auth === "secret" || route.auth === "any" || route.role
        ? [`With a session instead of a key: the ${requiredRole(route)} role at least in the X-Mailroom-Project project.`]
        : []),
      ...(!route.body && !route.upload && takesBody(route) ? [limit] : []),
    ];
    if (notes.length) op.description = notes.join(" ");
    paths[p] ??= {};
    paths[p][route.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Mailroom API",
      version: "1.0.0",
      description: "Transactional email, tracking, verification, contacts, templates, campaigns, segments and workflows.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooksOf(schemaOf),
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`sk_…` secret key, or `pk_…` public key on /v1/track" },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description: `The dashboard's session (POST /auth/login), with the \`${PROJECT_HEADER}\` header naming the project on API routes. Requests that change state carry that header and come from PUBLIC_URL's origin.`,
        },
      },
      schemas: { Error: schemaOf(ErrorBody, "output"), ...components },
    },
  };
}

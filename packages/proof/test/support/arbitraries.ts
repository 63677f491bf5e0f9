import fc from "fast-check";
import type { JsonSchema } from "./openapi.js";

/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document (as zod emits them). The
 * document loses what zod checks in code (email syntax, refinements), so a few field-name heuristics
 * make "valid" values valid often enough to reach the services' own logic.
 */
export interface SchemaContext {
  resolve(ref: string): JsonSchema;
  /** Real ids of the fuzzing project, so generated ids sometimes name something that exists. */
  ids: string[];
  /** Put inside huge strings, so the log check can tell whether a body reached a log line. */
  marker: string;
}

const MAX_DEPTH = 5;

export const uuid = () => fc.uuid({ version: 7 });
export const emailArb = () =>
  fc.oneof(
    fc.tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom("example.com", "mailroom.test", "gmail.com")).map(([l, d]) => `${l}@${d}`),
    fc.emailAddress(),
  );

/** Strings that have broken parsers, databases and templates before. */
export function hostileString(ctx: SchemaContext): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: "binary", maxLength: 50 }),
    fc.string({ unit: "grapheme", maxLength: 50 }),
    fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\r\nBcc: evil@example.com",
      "../../../etc/passwd",
      "%00%0d%0a",
      "'; DROP TABLE contacts; --",
      "{{ 7 | times: 7 }}{% raw %}",
      "${jndi:ldap://x}",
      "<script>alert(1)</script>",
      "NaN",
      "-1",
      "1e309",
      "null",
      "__proto__",
      "constructor",
      "\u202e\ufeff\u200b",
      "𝕏🙂".repeat(300),
    ),
    fc.integer({ min: 10_000, max: 300_000 }).map((n) => ctx.marker + "x".repeat(n)),
  );
}

/** `{"a":{"a":…}}` or `[[[…]]]`, `n` deep. */
export function deepNesting(n: number, kind: "object" | "array"): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = kind === "object" ? { a: v } : [v];
  return v;
}

export function wrongValue(ctx: SchemaContext): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    hostileString(ctx),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.constantFrom("object", "array" as const)).map(([n, k]) => deepNesting(n, k)),
  );
}

function stringArb(s: JsonSchema, name: string | undefined, ctx: SchemaContext): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.max(min, Math.min(s.maxLength ?? 40, 40));
  const n = (name ?? "").toLowerCase();
  if (s.format === "email" || /^(email|to|from|reply|replyto|address)$/.test(n)) return emailArb();
  if (/(^id$|id$|^template$|^after$)/i.test(name ?? "") && ctx.ids.length) return fc.oneof(fc.constantFrom(...ctx.ids), uuid());
  if (s.format === "date-time") return fc.date({ min: new Date("2020-01-01"), max: new Date("2035-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === "base64" || s.contentEncoding === "base64") return fc.base64String({ maxLength: 64 });
  if (/url$/i.test(n)) return fc.webUrl();
  if (s.pattern) {
    const re = new RegExp(s.pattern, "u");
    try {
      return fc.stringMatching(re).filter((v) => v.length >= min && v.length <= (s.maxLength ?? Infinity));
    } catch {
      return fc.string({ minLength: min, maxLength: max }).filter((v) => re.test(v));
    }
  }
  return fc.oneof(fc.string({ minLength: min, maxLength: max }), fc.string({ minLength: min, maxLength: max, unit: "grapheme" }));
}

/** Values that satisfy `schema` as far as the document can say. */
export function validArb(schema: JsonSchema, ctx: SchemaContext, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) return depth > MAX_DEPTH ? fc.constant(null) : validArb(ctx.resolve(schema.$ref), ctx, name, depth + 1);
  if ("const" in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) {
    // Deep in recursive shapes (filter groups), prefer the first branch so values stay finite.
    const usable = depth > MAX_DEPTH ? branches.slice(0, 1) : branches;
    return fc.oneof(...usable.map((b) => validArb(b, ctx, name, depth + 1)));
  }
  if (schema.allOf) return validArb(schema.allOf[0], ctx, name, depth + 1);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((t: string) => validArb({ ...schema, type: t }, ctx, name, depth)));
  switch (schema.type) {
    case "string":
      return stringArb(schema, name, ctx);
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, Number.MIN_SAFE_INTEGER), max: Math.min(schema.maximum ?? 1e6, Number.MAX_SAFE_INTEGER) });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const min = schema.minItems ?? 0;
      const items = schema.items ? validArb(schema.items, ctx, name, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(items, { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, depth > MAX_DEPTH ? min : 3)) });
    }
    case "object":
      return objectArb(schema, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArb(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  if (Object.keys(props).length) {
    const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validArb(s, ctx, k, depth + 1)]));
    return fc.record(model, { requiredKeys: depth > MAX_DEPTH ? required : required.filter((k) => k in model) });
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    const keys = schema.propertyNames ? stringArb(schema.propertyNames, undefined, ctx) : fc.string({ minLength: 1, maxLength: 12 });
    return fc.dictionary(keys, validArb(schema.additionalProperties, ctx, undefined, depth + 1), { maxKeys: depth > MAX_DEPTH ? 0 : 3 });
  }
  return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
}

/**
 * A valid value with one thing broken: a required field gone, a field of the wrong type or null, an
 * unknown field, or a hostile string in place of a field.
 */
export function mutatedArb(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  return fc.tuple(validArb(schema, ctx), fc.nat(), wrongValue(ctx), fc.constantFrom("drop", "replace", "add", "null")).map(([v, pick, wrong, how]) => {
    if (!v || typeof v !== "object" || Array.isArray(v)) return wrong;
    const out = { ...(v as Record<string, unknown>) };
    const keys = Object.keys(out);
    const key = keys.length ? keys[pick % keys.length]! : "unexpected";
    if (how === "drop") delete out[key];
    else if (how === "replace") out[key] = wrong;
    else if (how === "null") out[key] = null;
    else out[`x_${pick % 1000}`] = wrong;
    return out;
  });
}

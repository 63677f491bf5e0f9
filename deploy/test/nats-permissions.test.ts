/**
 * The NATS permission catalog (packages/contracts/src/permissions.ts) against the code: every
 * internal call a service makes is listed for it, nothing is listed that no code makes, and every
 * stream the services create can be written by someone. A call added without its permission would
 * otherwise work on a laptop and time out in production.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as contracts from "@mailroom/contracts";
import { RPC_CALLS, SERVICE_NAMES, natsInboxPrefix, natsPermissions, wireNames, type ServiceName } from "@mailroom/contracts";
import { coreStreams } from "@mailroom/kit";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Operations of other services that a service's code refers to through an RPC catalog (`xRpc.name`). */
function callsInCode(service: ServiceName): string[] {
  const found = new Set<string>();
  for (const file of sources(join(ROOT, "services", service, "src"))) {
    for (const [, catalog, name] of readFileSync(file, "utf8").matchAll(/\b(\w+Rpc)\.(\w+)\b/g)) {
      const def = (contracts as unknown as Record<string, Record<string, { service?: string; operation?: string }> | undefined>)[catalog!]?.[name!];
      if (def?.operation && def.service !== service) found.add(def.operation);
    }
  }
  return [...found].sort();
}

/** Whether NATS permission `allow` covers every subject of `subject` (both may hold wildcards). */
function covers(allow: string, subject: string): boolean {
  const a = allow.split(".");
  const s = subject.split(".");
  for (let i = 0; i < a.length; i++) {
    if (a[i] === ">") return i < s.length;
    if (i >= s.length || s[i] === ">") return false;
    if (a[i] !== "*" && a[i] !== s[i]) return false;
  }
  return a.length === s.length;
}

describe("the NATS permission catalog", () => {
  it.each(SERVICE_NAMES.filter((s) => s !== "gateway"))("lists exactly the operations %s calls", (service) => {
    expect([...RPC_CALLS[service as Exclude<ServiceName, "gateway">]].sort()).toEqual(callsInCode(service));
  });

  it("finds the calls it checks (the scan is not blind)", () => {
    expect(callsInCode("campaigns")).toContain("sending.enqueueBatch");
    expect(callsInCode("sending")).toContain("contacts.upsertMany");
  });

  it("lets some service write to every stream the services create", () => {
    const permissions = natsPermissions("mailroom");
    for (const stream of coreStreams(wireNames("mailroom"), 1)) {
      for (const subject of stream.subjects ?? []) {
        const writers = SERVICE_NAMES.filter((s) => permissions[s].publish.allow.some((a) => covers(a, subject)));
        expect(writers.length, `nobody may publish to ${subject} (stream ${stream.name})`).toBeGreaterThan(0);
      }
    }
  });

  it("keeps each service to its own replies and its own operations, and the API to the gateway", () => {
    const permissions = natsPermissions("acme");
    const names = wireNames("acme");
    for (const service of SERVICE_NAMES) {
      const { publish, subscribe } = permissions[service];
      for (const other of SERVICE_NAMES.filter((o) => o !== service)) {
        const readsOther = [`${natsInboxPrefix("acme", other)}.x`, names.rpc(`${other}.any`), names.rpcBatch(`${other}.any`)];
        for (const subject of readsOther) expect(subscribe.allow.some((a) => covers(a, subject)), `${service} reads ${subject}`).toBe(false);
      }
      // An API route (a project's contacts list) may be requested by the gateway only.
      const route = names.rpc("contacts.list");
      expect(publish.allow.some((a) => covers(a, route)), `${service} → ${route}`).toBe(service === "gateway");
      expect(publish.deny).toContain("$JS.API.STREAM.DELETE.>");
    }
  });

  it("matches subjects the way nats-server does", () => {
    expect(covers("a.>", "a.b.c")).toBe(true);
    expect(covers("a.>", "a")).toBe(false);
    expect(covers("a.*", "a.b")).toBe(true);
    expect(covers("a.*", "a.>")).toBe(false);
    expect(covers("a.b", "a.b.c")).toBe(false);
    expect(covers("a.b.>", "a.b.>")).toBe(true);
  });
});

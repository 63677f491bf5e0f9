/**
 * Internal traffic in the chart (decisions.md §12): with production values every service connects
 * to NATS as its own user, the NATS server's side of those users carries exactly the permission
 * catalog of packages/contracts, and a NetworkPolicy lets each service receive only what it serves
 * and reach only what it uses.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICES, SERVICE_NAMES, natsPermissions, natsUser, type ServiceName } from "@mailroom/contracts";
// @ts-expect-error plain ESM script without type declarations
import { helmNatsUsers } from "../../nats-auth.mjs";
import { ROOT, kinds, render, type Manifest } from "./helpers.js";

const CHART = join(ROOT, "deploy/helm/mailroom");
const PRODUCTION = join(CHART, "values-production.yaml");
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";

type User = { user: string; password: string; permissions: ReturnType<typeof natsPermissions>[ServiceName] };

/** The users of an auth.conf the chart rendered: one JSON object per line. */
function authUsers(conf: string): User[] {
  return conf
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as User);
}

const byName = (manifests: Manifest[], kind: string, name: string) => kinds(manifests, kind).find((m) => m.metadata.name === name);

let production: Manifest[];
let defaults: Manifest[];

beforeAll(async () => {
  [production, defaults] = await Promise.all([render(CHART, "prod", ["-f", PRODUCTION]), render(CHART, "demo")]);
});

describe("NATS users, with production values", () => {
  it("renders the chart's users and permissions from the catalog (files/nats-users.json is current)", async () => {
    expect(readFileSync(join(CHART, "files/nats-users.json"), "utf8")).toBe(await helmNatsUsers());
  });

  it("gives every service its own password, in the services' Secret and in the server's auth.conf", () => {
    const credentials = byName(production, "Secret", "prod-mailroom-nats-credentials")!;
    const passwords = credentials.stringData as Record<string, string>;
    expect(Object.keys(passwords).sort()).toEqual([...SERVICE_NAMES].sort());
    expect(new Set(Object.values(passwords)).size).toBe(SERVICE_NAMES.length);
    for (const pw of Object.values(passwords)) expect(pw.length).toBeGreaterThanOrEqual(32);

    const auth = byName(production, "Secret", "prod-mailroom-nats-auth")!;
    expect((auth.metadata as { namespace?: string }).namespace).toBe("nats"); // natsAuth.serverNamespace: where NATS can mount it
    const users = authUsers(auth.stringData["auth.conf"]);
    const catalog = natsPermissions("mailroom");
    expect(users.map((u) => u.user).sort()).toEqual(SERVICE_NAMES.map((s) => natsUser("mailroom", s)).sort());
    for (const service of SERVICE_NAMES) {
      const user = users.find((u) => u.user === natsUser("mailroom", service))!;
      expect(user.password, service).toBe(passwords[service]);
      expect(user.permissions, service).toEqual(catalog[service]);
    }
    // Only the gateway may send requests to any operation.
    const rpcAll = users.filter((u) => u.permissions.publish.allow.includes("mailroom.rpc.>")).map((u) => u.user);
    expect(rpcAll).toEqual(["mailroom-gateway"]);
  });

  it("follows config.natsPrefix, and uses the passwords given in values", async () => {
    const prefix = "acme-Prod_2";
    const given = "given-password-0123456789-abcdef";
    const manifests = await render(CHART, "prod", ["-f", PRODUCTION, "--set", `config.natsPrefix=${prefix}`, "--set", `natsAuth.passwords.verify=${given}`]);
    const users = authUsers(byName(manifests, "Secret", "prod-mailroom-nats-auth")!.stringData["auth.conf"]);
    const catalog = natsPermissions(prefix);
    for (const service of SERVICE_NAMES) {
      expect(users.find((u) => u.user === natsUser(prefix, service))?.permissions, service).toEqual(catalog[service]);
    }
    expect(users.find((u) => u.user === natsUser(prefix, "verify"))!.password).toBe(given);
    expect(byName(manifests, "Secret", "prod-mailroom-nats-credentials")!.stringData.verify).toBe(given);
    const verify = byName(manifests, "Deployment", "prod-mailroom-verify")!.spec.template.spec.containers[0];
    expect(verify.env).toContainEqual({ name: "NATS_USER", value: natsUser(prefix, "verify") });
  });

  it("is a configuration the real nats-server accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-chart-nats-"));
    try {
      writeFileSync(join(dir, "auth.conf"), byName(production, "Secret", "prod-mailroom-nats-auth")!.stringData["auth.conf"]);
      // As the NATS chart includes it: `config.merge.$include` (deploy/helm/README.md).
      writeFileSync(join(dir, "nats.conf"), 'port: 4222\njetstream { store_dir: "/data" }\ninclude ./auth.conf\n');
      const r = spawnSync(NATS_SERVER, ["-c", join(dir, "nats.conf"), "-t"], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs each service as its user, its password from the credentials Secret", () => {
    for (const service of SERVICE_NAMES) {
      const deployment = byName(production, "Deployment", `prod-mailroom-${service}`)!;
      const { env } = deployment.spec.template.spec.containers[0];
      expect(env).toContainEqual({ name: "NATS_USER", value: natsUser("mailroom", service) });
      expect(env).toContainEqual({
        name: "NATS_PASSWORD",
        valueFrom: { secretKeyRef: { name: "prod-mailroom-nats-credentials", key: service } },
      });
      // A changed password rolls the pods.
      expect(deployment.spec.template.metadata.annotations["checksum/nats-credentials"]).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("is off with the evaluation defaults, which need a NATS without users", () => {
    expect(kinds(defaults, "Secret").map((s) => s.metadata.name)).not.toContain("demo-mailroom-nats-credentials");
    for (const d of kinds(defaults, "Deployment")) {
      expect(d.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name)).not.toContain("NATS_USER");
    }
  });
});

type Rule = { from?: object[]; to?: Array<{ ipBlock?: { cidr: string; except: string[] }; [k: string]: unknown }>; ports?: Array<{ port: number | string; protocol: string }> };

/** Which services' main.ts ask the runtime for Redis (`redis: "optional" | "required"`). */
function usesRedis(service: string): boolean {
  return /\bredis:\s*"(optional|required)"/.test(readFileSync(join(ROOT, "services", service, "src/main.ts"), "utf8"));
}

describe.each([
  ["default values", () => defaults, "demo-mailroom", false],
  ["values-production.yaml", () => production, "prod-mailroom", true],
])("NetworkPolicies, with %s", (_label, manifests, fullName, relay) => {
  const policy = (service: string) => byName(manifests(), "NetworkPolicy", `${fullName}-${service}`)!.spec;
  const hasPort = (rule: Rule, port: number | string, protocol = "TCP") => (rule.ports ?? []).some((p) => p.port === port && p.protocol === protocol);

  it("selects every service's pods, for traffic both ways", () => {
    expect(kinds(manifests(), "NetworkPolicy")).toHaveLength(SERVICE_NAMES.length);
    for (const service of SERVICE_NAMES) {
      expect(policy(service).podSelector.matchLabels).toMatchObject({ "app.kubernetes.io/component": service });
      expect(policy(service).policyTypes).toEqual(["Ingress", "Egress"]);
    }
  });

  it("lets in only the gateway's HTTP (and SMTP relay, when on) and sending's SMTP from anywhere, and the ops port from monitoring", () => {
    const open: string[] = [];
    for (const service of SERVICE_NAMES) {
      for (const rule of policy(service).ingress as Rule[]) {
        expect(rule.ports?.length, `${service}: a rule without ports opens every port`).toBeGreaterThan(0);
        if (!rule.from) {
          open.push(...rule.ports!.map((p) => `${service}:${p.port}`));
        } else {
          expect(rule.from.length, `${service}: an empty from is everyone`).toBeGreaterThan(0);
          expect(rule.ports).toEqual([{ port: "ops", protocol: "TCP" }]);
          expect(JSON.stringify(rule.from)).toContain("monitoring");
        }
      }
    }
    expect(open.sort()).toEqual([...(relay ? ["gateway:http", "gateway:submission", "gateway:submissions"] : ["gateway:http"]), "sending:smtp"]);
  });

  it("lets out to what each service uses: NATS and DNS always, its database, Redis, SMTP or the internet when it has them", () => {
    for (const service of SERVICE_NAMES) {
      const egress = policy(service).egress as Rule[];
      for (const rule of egress) expect(rule.to?.length || rule.ports?.length, `${service}: a rule open to everything`).toBeTruthy();
      expect(egress.some((r) => hasPort(r, 4222)), `${service} → NATS`).toBe(true);
      expect(egress.some((r) => hasPort(r, 53, "UDP") && hasPort(r, 53, "TCP")), `${service} → DNS`).toBe(true);
      expect(egress.some((r) => hasPort(r, 5432)), `${service} → PostgreSQL`).toBe(SERVICES[service].database);
      expect(egress.some((r) => hasPort(r, 6379) || hasPort(r, 6380)), `${service} → Redis`).toBe(usesRedis(service));
      expect(egress.some((r) => hasPort(r, 587)), `${service} → SMTP relay`).toBe(service === "sending");
      const internet = egress.filter((r) => r.to?.some((t) => t.ipBlock?.cidr === "0.0.0.0/0"));
      expect(internet.length, `${service} → internet`).toBe(service === "sending" || service === "workflows" ? 1 : 0);
      for (const rule of internet) {
        // Tenant-supplied URLs must not reach the cluster's own network or the cloud metadata address.
        const except = rule.to!.find((t) => t.ipBlock?.cidr === "0.0.0.0/0")!.ipBlock!.except;
        expect(except).toEqual(expect.arrayContaining(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "127.0.0.0/8"]));
        expect(rule.to!.find((t) => t.ipBlock?.cidr === "::/0")?.ipBlock?.except).toEqual(expect.arrayContaining(["fc00::/7", "fe80::/10"]));
      }
    }
    // Webhooks may use any port; SNS certificates come over HTTPS only.
    const internetPorts = (service: string) => (policy(service).egress as Rule[]).find((r) => r.to?.some((t) => t.ipBlock))!.ports;
    expect(internetPorts("workflows")).toBeUndefined();
    expect(internetPorts("sending")).toEqual([{ port: 443, protocol: "TCP" }]);
  });
});

describe("NetworkPolicies, with production values", () => {
  it("reach NATS only in its namespace, and the OTLP collector", () => {
    for (const service of SERVICE_NAMES) {
      const egress = byName(production, "NetworkPolicy", `prod-mailroom-${service}`)!.spec.egress as Rule[];
      const nats = egress.find((r) => r.ports?.some((p) => p.port === 4222))!;
      expect(nats.to).toEqual([
        { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "nats" } }, podSelector: { matchLabels: { "app.kubernetes.io/name": "nats" } } },
      ]);
      expect(egress.some((r) => r.ports?.some((p) => p.port === 4318))).toBe(true);
    }
  });

  it("are left out when networkPolicy.enabled is false", async () => {
    const manifests = await render(CHART, "prod", ["-f", PRODUCTION, "--set", "networkPolicy.enabled=false"]);
    expect(kinds(manifests, "NetworkPolicy")).toHaveLength(0);
  });
});

describe("client addresses behind the ingress", () => {
  const config = (manifests: Manifest[]) => byName(manifests, "ConfigMap", "prod-mailroom-config") ?? byName(manifests, "ConfigMap", "demo-mailroom-config");
  it("trusts X-Forwarded-For only from the range production values name, and from nobody by default", () => {
    expect((config(production) as unknown as { data: Record<string, string> }).data.TRUST_PROXY).toBe("10.0.0.0/8");
    expect((config(defaults) as unknown as { data: Record<string, string> }).data).not.toHaveProperty("TRUST_PROXY");
  });
});

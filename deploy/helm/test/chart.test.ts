/**
 * Renders the chart with the real helm binary (scripts/helm.mjs) and checks what a platform
 * engineer relies on: every service of the monorepo is deployed, hardened and probed, migrations
 * run as a hook, KEDA watches the real JetStream names, and bad values fail before rendering.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, helm, kinds, loadWireNames, render, type Manifest, type WireNames } from "./helpers.js";

/** Every launcher runs a service with these node flags. */
const NODE_FLAGS: string[] = JSON.parse(readFileSync(join(ROOT, "packages", "kit", "node-flags.json"), "utf8")).flags;

const CHART = join(ROOT, "deploy/helm/mailroom");
const PRODUCTION = join(CHART, "values-production.yaml");
const SERVICES = readdirSync(join(ROOT, "services"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(ROOT, "services", d.name, "package.json")))
  .map((d) => d.name);

let wire: (prefix: string) => WireNames;
let defaults: Manifest[];
let production: Manifest[];

beforeAll(async () => {
  wire = await loadWireNames();
  [defaults, production] = await Promise.all([
    render(CHART, "demo"),
    render(CHART, "prod", ["-f", PRODUCTION]),
  ]);
});

describe("helm lint", () => {
  it.each([
    ["default values", []],
    ["values-production.yaml", ["-f", PRODUCTION]],
  ])("passes with %s", async (_label, args) => {
    const result = await helm(["lint", "--strict", CHART, ...args]);
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.code).toBe(0);
  });
});

describe.each([
  ["default values", () => defaults, "demo-mailroom"],
  ["values-production.yaml", () => production, "prod-mailroom"],
])("rendered with %s", (_label, manifests, fullName) => {
  const deployments = () => kinds(manifests(), "Deployment");

  it("has one Deployment per service of the monorepo, running its entry point", () => {
    expect(SERVICES.length).toBeGreaterThanOrEqual(6);
    for (const service of SERVICES) {
      const deployment = deployments().find((d) => d.metadata.name === `${fullName}-${service}`);
      expect(deployment, `Deployment for services/${service}`).toBeDefined();
      const [container] = deployment!.spec.template.spec.containers;
      expect(container.args).toEqual(["node", ...NODE_FLAGS, `services/${service}/dist/main.js`]);
    }
  });

  it("probes, sizes and hardens every Deployment", () => {
    for (const deployment of deployments()) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot, deployment.metadata.name).toBe(true);
      expect(pod.securityContext.seccompProfile.type).toBe("RuntimeDefault");
      expect(pod.topologySpreadConstraints?.length).toBeGreaterThan(0);
      for (const container of pod.containers) {
        expect(container.livenessProbe.httpGet).toEqual({ path: "/livez", port: "ops" });
        expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "ops" });
        expect(container.ports.find((p: { name: string }) => p.name === "ops")).toBeDefined();
        expect(container.resources.requests.cpu).toBeTruthy();
        expect(container.resources.requests.memory).toBeTruthy();
        expect(container.resources.limits.memory).toBeTruthy();
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
        });
        expect(container.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
      }
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: "tmp", emptyDir: expect.anything() }));
    }
  });

  it("runs `mailroom migrate` as a pre-install,pre-upgrade hook before the services", () => {
    const job = kinds(manifests(), "Job").find((j) => j.metadata.name === `${fullName}-migrate`);
    expect(job).toBeDefined();
    expect(job!.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const [container] = job!.spec.template.spec.containers;
    expect(container.args).toEqual(["node", "services/gateway/dist/cli.js", "migrate"]);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    // The Job's env Secret must be a hook too, created first: the release's own Secret does not
    // exist yet when pre-install hooks run.
    const envSecret = container.envFrom[0].secretRef.name;
    const secret = kinds(manifests(), "Secret").find((s) => s.metadata.name === envSecret);
    expect(secret!.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(Number(secret!.metadata.annotations["helm.sh/hook-weight"])).toBeLessThan(
      Number(job!.metadata.annotations["helm.sh/hook-weight"]),
    );
  });

  it("has a PodDisruptionBudget per service and an inbound SMTP Service for sending", () => {
    const pdbs = kinds(manifests(), "PodDisruptionBudget").map((p) => p.metadata.name);
    for (const service of SERVICES) expect(pdbs).toContain(`${fullName}-${service}`);
    const smtp = kinds(manifests(), "Service").find((s) => s.metadata.name === `${fullName}-sending-smtp`);
    expect(smtp!.spec.selector["app.kubernetes.io/component"]).toBe("sending");
    expect(smtp!.spec.ports[0].targetPort).toBe("smtp");
  });

  it("runs the SMTP relay only with a certificate: a LoadBalancer Service on 587 and 465, the Secret mounted", () => {
    const service = kinds(manifests(), "Service").find((s) => s.metadata.name === `${fullName}-gateway-smtp`);
    const gateway = deployments().find((d) => d.metadata.name === `${fullName}-gateway`)!.spec.template.spec;
    const env = Object.fromEntries(gateway.containers[0].env.map((e: { name: string; value?: string }) => [e.name, e.value]));
    if (fullName === "demo-mailroom") {
      expect(service).toBeUndefined();
      expect(env.SMTP_RELAY_TLS_CERT).toBeUndefined();
      return;
    }
    expect(service!.spec.type).toBe("LoadBalancer");
    expect(service!.spec.selector["app.kubernetes.io/component"]).toBe("gateway");
    expect(service!.spec.ports.map((p: any) => [p.port, p.targetPort])).toEqual([[587, "submission"], [465, "submissions"]]);
    expect(gateway.containers[0].ports.map((p: any) => p.name)).toEqual(expect.arrayContaining(["submission", "submissions"]));
    expect(env).toMatchObject({ SMTP_RELAY_PORT: "2587", SMTP_RELAY_TLS_PORT: "2465", SMTP_RELAY_TLS_CERT: "/etc/mailroom/relay-tls/tls.crt", SMTP_RELAY_TLS_KEY: "/etc/mailroom/relay-tls/tls.key" });
    expect(gateway.volumes.find((v: any) => v.name === "relay-tls").secret.secretName).toBe("mailroom-relay-tls");
  });

  it("scales the gateway on CPU", () => {
    const hpa = kinds(manifests(), "HorizontalPodAutoscaler").find((h) => h.metadata.name === `${fullName}-gateway`);
    expect(hpa!.spec.metrics[0].resource.name).toBe("cpu");
    const gateway = deployments().find((d) => d.metadata.name === `${fullName}-gateway`);
    expect(gateway!.spec.replicas).toBeUndefined();
  });
});

describe("production values", () => {
  it("creates KEDA ScaledObjects on the real stream and consumer names of packages/contracts", () => {
    const names = wire("mailroom");
    const scaled = Object.fromEntries(kinds(production, "ScaledObject").map((s) => [s.spec.scaleTargetRef.name, s.spec.triggers]));
    expect(Object.keys(scaled).sort()).toEqual(["prod-mailroom-sending", "prod-mailroom-workflows"]);
    // both of sending's lanes: a transactional backlog scales it as a bulk one does
    expect(scaled["prod-mailroom-sending"]).toMatchObject([
      { type: "nats-jetstream", metadata: { stream: names.streams.sendJobs.name, consumer: names.consumers.sendingDelivery } },
      { type: "nats-jetstream", metadata: { stream: names.streams.transactionalJobs.name, consumer: names.consumers.sendingTransactional } },
    ]);
    expect(scaled["prod-mailroom-workflows"]).toMatchObject([
      { type: "nats-jetstream", metadata: { stream: names.streams.events.name, consumer: names.consumers.workflowsTriggers } },
    ]);
    for (const trigger of Object.values(scaled).flat()) {
      expect(Object.keys(trigger.metadata)).toEqual(
        expect.arrayContaining(["natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold"]),
      );
    }
  });

  it("derives stream names from config.natsPrefix exactly as wireNames does", async () => {
    const prefix = "acme-Prod_2";
    const manifests = await render(CHART, "prod", ["-f", PRODUCTION, "--set", `config.natsPrefix=${prefix}`]);
    const streams = kinds(manifests, "ScaledObject")
      .flatMap((s) => s.spec.triggers.map((t: { metadata: { stream: string } }) => t.metadata.stream))
      .sort();
    const names = wire(prefix);
    expect(streams).toEqual([names.streams.events.name, names.streams.sendJobs.name, names.streams.transactionalJobs.name].sort());
  });

  it("leaves replicas to KEDA and the HPA, and sets them elsewhere", () => {
    const replicas = Object.fromEntries(
      kinds(production, "Deployment").map((d) => [d.metadata.name.replace("prod-mailroom-", ""), d.spec.replicas]),
    );
    expect(replicas).toEqual({
      gateway: undefined,
      sending: undefined,
      workflows: undefined,
      contacts: 3,
      campaigns: 3,
      verify: 3,
    });
  });

  it("reads credentials from the existing Secret, in the services and in the migrations Job", () => {
    const pods = [...kinds(production, "Deployment"), ...kinds(production, "Job")].map((w) => w.spec.template.spec);
    for (const pod of pods) {
      const secrets = pod.containers[0].envFrom.map((e: { secretRef?: { name: string } }) => e.secretRef?.name);
      expect(secrets).toContain("mailroom");
    }
    const chartSecret = kinds(production, "Secret").find((s) => s.metadata.name === "prod-mailroom");
    expect(chartSecret!.stringData ?? {}).not.toHaveProperty("DATABASE_URL");
    expect(chartSecret!.stringData ?? {}).not.toHaveProperty("MAILROOM_SECRET");
  });

  it("routes the Ingress to the gateway's HTTP port", () => {
    const [ingress] = kinds(production, "Ingress");
    const backend = ingress!.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: "prod-mailroom-gateway", port: { name: "http" } });
  });
});

describe("dashboard sign-in settings", () => {
  it("renders OpenID Connect with its client secret in the release Secret only, and the system sender", async () => {
    const manifests = await render(CHART, "sso", [
      "--set", "oidc.issuer=https://id.example.com",
      "--set", "oidc.clientId=mailroom",
      "--set", "oidc.clientSecret=s3cret",
      "--set", "config.systemFrom=no-reply@mail.example.com",
    ]);
    const config = kinds(manifests, "ConfigMap").find((m) => m.metadata.name === "sso-mailroom-config")!.data;
    expect(config).toMatchObject({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "mailroom", SYSTEM_FROM: "no-reply@mail.example.com" });
    expect(config).not.toHaveProperty("OIDC_CLIENT_SECRET");
    const secret = kinds(manifests, "Secret").find((s) => s.metadata.name === "sso-mailroom")!.stringData;
    expect(secret).toMatchObject({ OIDC_CLIENT_SECRET: "s3cret" });
    expect(kinds(defaults, "ConfigMap").find((m) => m.metadata.name === "demo-mailroom-config")!.data).not.toHaveProperty("OIDC_ISSUER");
  });
});

describe("values-production.yaml on a NATS cluster, as the fault suite runs one (packages/faults, nats-cluster.test.ts)", () => {
  it("gives every service all three servers, replicas 3 and a NATS user of its own", () => {
    const config = kinds(production, "ConfigMap").find((m) => m.metadata.name === "prod-mailroom-config")!.data;
    expect(config.NATS_REPLICAS).toBe("3");
    const servers = config.NATS_URL.split(",");
    expect(new Set(servers).size).toBe(3);
    for (const url of servers) expect(url).toMatch(/^nats:\/\/nats-[0-2]\.nats-headless\.nats\.svc\.cluster\.local:4222$/);
    for (const deployment of kinds(production, "Deployment")) {
      const env = deployment.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name);
      expect(env, deployment.metadata.name).toEqual(expect.arrayContaining(["NATS_USER", "NATS_PASSWORD"]));
    }
  });
});

describe("the values schema rejects", () => {
  it.each([
    ["a negative replica count", ["--set", "services.contacts.replicas=-1"], "replicas"],
    ["a fractional replica count", ["--set-json", "services.verify.replicas=1.5"], "replicas"],
    ["no database URL and no existingSecret", ["--set", "database.url="], "database"],
    ["an unknown service", ["--set", "services.sendng.replicas=1"], "sendng"],
    ["an unknown log level", ["--set", "config.logLevel=loud"], "logLevel"],
    ["a NATS prefix wireNames would refuse", ["--set", "config.natsPrefix=a.b"], "natsPrefix"],
    ["an OIDC issuer that is no URL", ["--set", "oidc.issuer=id.example.com"], "issuer"],
  ])("%s", async (_label, args, mention) => {
    const result = await helm(["template", "bad", CHART, ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("don't meet the specifications of the schema");
    expect(result.stderr).toContain(mention);
  });

  it("nothing when the database URL comes from an existing Secret", async () => {
    const manifests = await render(CHART, "ok", ["--set", "database.url=", "--set", "database.existingSecret=db"]);
    expect(kinds(manifests, "Deployment")).toHaveLength(SERVICES.length);
  });
});

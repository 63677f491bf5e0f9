/**
 * Static checks of the Dockerfile and docker-compose.yml (no Docker daemon needed): the contracts
 * the chart and the compose file rely on must hold in the image, and compose must run every
 * service of the monorepo.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Every launcher runs a service with these node flags. */
const NODE_FLAGS: string[] = JSON.parse(readFileSync(join(ROOT, "packages", "kit", "node-flags.json"), "utf8")).flags;
const SERVICES = readdirSync(join(ROOT, "services")).filter((s) => existsSync(join(ROOT, "services", s, "package.json")));

describe("Dockerfile", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));

  it("builds with turbo and installs production dependencies only for the runtime", () => {
    expect(dockerfile).toMatch(/npm ci\b/);
    expect(dockerfile).toContain("npx turbo run build");
    expect(dockerfile).toContain("npm ci --omit=dev");
    expect(dockerfile).toContain("ARG NODE_IMAGE=node:20-bookworm-slim");
  });

  it("runs as uid 10001 under tini, in production mode, without a HEALTHCHECK", () => {
    expect(runtime).toMatch(/^USER 10001:10001$/m);
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--"]');
    expect(runtime).toContain("ENV NODE_ENV=production");
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
  });

  it("runs a service with the node flags every launcher uses", () => {
    const cmd = ["node", ...NODE_FLAGS, "services/gateway/dist/main.js"].map((a) => `"${a}"`).join(", ");
    expect(runtime).toContain(`CMD [${cmd}]`);
  });
});

describe("docker-compose.yml", () => {
  // merge: the file shares the service definition through YAML merge keys (<<).
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8"), { merge: true });
  const services: Record<string, { command?: string[]; environment?: Record<string, string>; depends_on?: object }> =
    compose.services;

  it("runs every service of the monorepo from the image with its own ops port", () => {
    const opsPorts = new Set<string>();
    for (const name of SERVICES) {
      expect(services[name]?.command, name).toEqual(["node", ...NODE_FLAGS, `services/${name}/dist/main.js`]);
      expect(services[name]?.depends_on).toHaveProperty("migrate.condition", "service_completed_successfully");
      opsPorts.add(services[name]!.environment!.OPS_PORT!);
    }
    expect(opsPorts.size).toBe(SERVICES.length);
  });

  it("migrates once, sends to the dev mailbox and runs NATS with JetStream", () => {
    expect(services.migrate?.command).toEqual(["node", "services/gateway/dist/cli.js", "migrate"]);
    expect(services.devmailbox?.command).toEqual(["node", "packages/devmailbox/dist/main.js"]);
    expect(services.gateway?.environment?.SMTP_URL).toBe("smtp://devmailbox:1025");
    expect(services.nats?.command).toContain("-js");
    expect(Object.keys(services)).toEqual(expect.arrayContaining(["postgres", "redis"]));
  });
});

/**
 * Static checks of the Dockerfile and docker-compose.yml (no Docker daemon needed): the contracts
 * the chart and the compose file rely on must hold in the image, and compose must run every
 * service of the monorepo.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { natsUser, type ServiceName } from "@mailroom/contracts";
import { productionSecretProblem } from "@mailroom/kit";
// @ts-expect-error plain ESM script without type declarations
import { COMPOSE_PREFIX, composeNatsConf, passwordVariable } from "../nats-auth.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Every launcher runs a service with these node flags. */
const NODE_FLAGS: string[] = JSON.parse(readFileSync(join(ROOT, "packages", "kit", "node-flags.json"), "utf8")).flags;
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";
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
  const raw = readFileSync(join(ROOT, "docker-compose.yml"), "utf8");
  // merge: the file shares the service definition through YAML merge keys (<<).
  const compose = parse(raw, { merge: true });
  const services: Record<
    string,
    { command?: string[]; environment?: Record<string, string>; depends_on?: object; ports?: string[]; volumes?: string[] }
  > = compose.services;
  const natsConf = readFileSync(join(ROOT, "deploy/compose/nats.conf"), "utf8");

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
    expect(services.nats?.command).toEqual(["-c", "/etc/nats/nats.conf"]);
    expect(services.nats?.volumes).toContain("./deploy/compose/nats.conf:/etc/nats/nats.conf:ro");
    expect(natsConf).toContain('jetstream { store_dir: "/data" }');
    expect(services.nats?.volumes).toContain("nats-data:/data");
    expect(natsConf).toMatch(/^http: 8222$/m); // the healthcheck's port
    expect(Object.keys(services)).toEqual(expect.arrayContaining(["postgres", "redis"]));
  });

  it("publishes NATS, PostgreSQL and Redis on no host port", () => {
    for (const name of ["nats", "postgres", "redis"]) expect(services[name], name).not.toHaveProperty("ports");
    expect(raw).not.toMatch(/["'\s]4222:4222/);
  });

  it("runs NATS with the permission catalog, each service as its own user with its own password", async () => {
    expect(natsConf).toBe(await composeNatsConf());
    expect(services.gateway?.environment?.NATS_PREFIX).toBe(COMPOSE_PREFIX);
    const passwords = new Set<string>();
    for (const name of SERVICES) {
      const env = services[name]!.environment!;
      const variable: string = passwordVariable(name);
      expect(env.NATS_USER, name).toBe(natsUser(COMPOSE_PREFIX, name as ServiceName));
      expect(env.NATS_PASSWORD, name).toMatch(new RegExp(`^\\$\\{${variable}:\\?[^}]+\\}$`));
      expect(services.nats?.environment?.[variable], `the NATS server's ${variable}`).toBe(env.NATS_PASSWORD);
      // The server's entry for this user reads this variable, and no other user's does.
      const entry = natsConf.slice(natsConf.indexOf(`user: "${natsUser(COMPOSE_PREFIX, name as ServiceName)}"`));
      expect(entry).toMatch(new RegExp(`^user: "[^"]+"\\n\\s+password: \\$${variable}\\n`));
      passwords.add(env.NATS_PASSWORD!);
    }
    expect(passwords.size).toBe(SERVICES.length);
    // Only the services that speak NATS get a NATS password.
    for (const name of ["migrate", "devmailbox"]) expect(services[name]?.environment?.NATS_PASSWORD).toBeUndefined();
  });

  it("holds no secret: each comes from .env, and compose refuses to start without it", () => {
    expect(raw).not.toContain("compose-development-secret");
    const secretish = /SECRET|PASSWORD|TOKEN|_KEY$/;
    let checked = 0;
    let urls = 0;
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        const userinfo = /^[a-z]+:\/\/[^/:@]*:(.+)@[^@]+$/.exec(String(value));
        if (secretish.test(key)) {
          checked++;
          expect(value, `${name} ${key}`).toMatch(/^\$\{[A-Z_]+:\?[^}]+\}$/);
        }
        if (userinfo) {
          urls++;
          expect(userinfo[1], `the password in ${name} ${key}`).toMatch(/^\$\{[A-Z_]+:\?[^}]+\}$/);
        }
      }
    }
    expect(checked).toBeGreaterThan(SERVICES.length * 2);
    expect(urls, "DATABASE_URL's password").toBeGreaterThan(0);
  });

  it("makes .env with make-env.sh: every variable compose requires, fit for production and for nats-server", () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-compose-env-"));
    try {
      const file = join(dir, ".env");
      const made = spawnSync("sh", [join(ROOT, "deploy/compose/make-env.sh"), file], { encoding: "utf8" });
      expect(made.status, made.stderr).toBe(0);
      const env = Object.fromEntries(
        readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
      const required = [...new Set([...raw.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]!))];
      expect(required.sort()).toEqual(Object.keys(env).sort());
      expect(productionSecretProblem(env.MAILROOM_SECRET)).toBeNull();
      expect(new Set(Object.values(env)).size).toBe(Object.keys(env).length);
      // Never overwrites: the secret signs links already sent, the passwords match the volumes.
      const again = spawnSync("sh", [join(ROOT, "deploy/compose/make-env.sh"), file], { encoding: "utf8" });
      expect(again.status).toBe(1);
      expect(readFileSync(file, "utf8")).toBe(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join("\n")}\n`);

      // The real server accepts the configuration with these passwords, and refuses it without them.
      const check = (vars: Record<string, string>) =>
        spawnSync(NATS_SERVER, ["-c", join(ROOT, "deploy/compose/nats.conf"), "-t"], { encoding: "utf8", env: { PATH: process.env.PATH, ...vars } });
      const ok = check(env);
      expect(ok.status, ok.stderr).toBe(0);
      const { NATS_SENDING_PASSWORD: _, ...withoutOne } = env;
      const missing = check(withoutOne);
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toContain("NATS_SENDING_PASSWORD");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

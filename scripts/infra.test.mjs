// Run with `node --test scripts/infra.test.mjs`. Uses the real local servers read-only and fake
// TCP servers for the failure cases; it never installs, starts or stops anything (install: false,
// or addresses that are not auto-started).
import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import { DEFAULTS, ensureInfra } from "./infra.mjs";

const quiet = { log: () => {}, install: false };
const fakes = [];

/** A TCP server on a random loopback port that answers each connection with `onConnect`. */
async function fakeServer(onConnect) {
  const server = net.createServer(onConnect);
  fakes.push(server);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server.address().port;
}

after(() => {
  for (const server of fakes) server.close();
});

describe("ensureInfra", () => {
  it("resolves with a status per server when all three answer", async () => {
    const statuses = await ensureInfra({ ...DEFAULTS, ...quiet });
    assert.deepEqual(statuses.map((s) => s.name), ["NATS", "PostgreSQL", "Redis"]);
    assert.equal(statuses[0].detail, "JetStream enabled");
  });

  it("accepts a NATS server list when any one server answers", async () => {
    await ensureInfra({ ...DEFAULTS, ...quiet, natsUrl: `nats://127.0.0.1:1, ${DEFAULTS.natsUrl}` });
  });

  it("names the variable and the command for a local server that is down", async () => {
    await assert.rejects(ensureInfra({ ...DEFAULTS, ...quiet, natsUrl: "nats://127.0.0.1:1" }), (error) => {
      assert.match(error.message, /^NATS at nats:\/\/127\.0\.0\.1:1 is not reachable\. Install nats-server \(https:\/\/[^)]+\) and start it with `nats-server -js -p 1`/);
      assert.match(error.message, /or set NATS_URL\.$/);
      return true;
    });
  });

  it("does not try to fix a non-local server and hides its password", async () => {
    const logged = [];
    // 127.0.0.2 is loopback but not an address the script would start a server on.
    await assert.rejects(
      ensureInfra({ ...DEFAULTS, log: (line) => logged.push(line), redisUrl: "redis://:s3cret@127.0.0.2:1", databaseUrl: "postgres://u:pw@127.0.0.2:1/db" }),
      (error) => {
        const lines = error.message.split("\n");
        assert.equal(lines.length, 2);
        assert.match(lines[0], /^PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.2:1\/db is not reachable .*set DATABASE_URL\.$/);
        assert.match(lines[1], /^Redis at redis:\/\/:\*\*\*@127\.0\.0\.2:1 is not reachable .*set REDIS_URL\.$/);
        assert.doesNotMatch(error.message, /s3cret|pw@/);
        return true;
      },
    );
    assert.deepEqual(logged, []);
  });

  it("explains that JetStream must be enabled", async () => {
    const port = await fakeServer((socket) => socket.end('INFO {"server_id":"fake","version":"2.9.0","max_payload":1048576}\r\n'));
    await assert.rejects(ensureInfra({ ...DEFAULTS, ...quiet, natsUrl: `nats://127.0.0.1:${port}` }), /running without JetStream\. Restart it with JetStream enabled \(`nats-server -js`\), or set NATS_URL/);
  });

  it("counts a password-protected Redis as up", async () => {
    const port = await fakeServer((socket) => socket.once("data", () => socket.end("-NOAUTH Authentication required.\r\n")));
    await ensureInfra({ ...DEFAULTS, ...quiet, redisUrl: `redis://127.0.0.1:${port}` });
  });

  it("reports a port held by something else without waiting long", async () => {
    const port = await fakeServer(() => {}); // accepts and never answers
    const started = Date.now();
    await assert.rejects(
      ensureInfra({ ...DEFAULTS, ...quiet, timeoutMs: 300, databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres` }),
      /^Error: PostgreSQL at .* does not answer like PostgreSQL \(no answer within 300 ms\)\. Free that port or set DATABASE_URL\.$/,
    );
    assert.ok(Date.now() - started < 2000);
  });
});

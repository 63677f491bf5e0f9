import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@mailroom/kit";
import type { InboundMessage } from "../usecases/inbound.js";
import { startInbound, type InboundOptions, type InboundOutcome, type InboundServer } from "./server.js";

const KB = 1024;
const log = createLogger("test", "silent");
let server: InboundServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An inbound server whose handler records what it got and, when told to, holds messages until released. */
async function start(opts: Partial<InboundOptions>, hold = false) {
  const received: InboundMessage[] = [];
  const outcomes: InboundOutcome[] = [];
  const waiting: Array<() => void> = [];
  server = await startInbound(
    { host: "127.0.0.1", port: 0, maxBytes: 256 * KB, keepBytes: 32 * KB, bufferBytes: 1024 * KB, socketTimeoutMs: 10_000, maxClients: 10, name: "test", ...opts },
    {
      accepts: async () => true,
      async receive(msg) {
        received.push(msg);
        if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
      },
      outcome: (o) => outcomes.push(o),
    },
    log,
  );
  const port = server.port;
  const send = (raw: Buffer | string) => {
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port, ignoreTLS: true, socketTimeout: 10_000 });
    return transport.sendMail({ envelope: { from: "a@example.com", to: ["b@example.com"] }, raw }).finally(() => transport.close());
  };
  const releaseAll = () => {
    for (const release of waiting.splice(0)) release();
  };
  return { received, outcomes, send, releaseAll, waiting };
}

const message = (bodyBytes: number) => `Subject: x\r\n\r\n${`${"y".repeat(76)}\r\n`.repeat(Math.ceil(bodyBytes / 78))}`;
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setImmediate(r));
};

describe("inbound SMTP bounds", () => {
  it("keeps the first keepBytes of a bigger message, answers 250 and marks it truncated", async () => {
    const s = await start({ keepBytes: 32 * KB });
    const info = await s.send(message(200 * KB));
    expect(info.response).toMatch(/^250/);
    expect(s.received).toHaveLength(1);
    expect(s.received[0]!.raw.length).toBe(32 * KB);
    expect(s.received[0]!.truncated).toBe(true);
    await s.send(message(1 * KB));
    expect(s.received[1]!.truncated).toBe(false);
    expect(s.outcomes).toEqual(["truncated", "accepted"]);
  });

  it("answers 452 when the bytes kept for all messages are spent, and takes mail again once they are freed", async () => {
    const s = await start({ keepBytes: 64 * KB, bufferBytes: 64 * KB }, true);
    const first = s.send(message(100 * KB));
    // the first message holds the whole budget while its handler runs
    await until(() => s.waiting.length === 1);
    const refused = await s.send(message(1 * KB)).catch((e: { responseCode?: number }) => e);
    expect(refused.responseCode).toBe(452);
    expect(s.received).toHaveLength(1);
    s.releaseAll();
    expect((await first).response).toMatch(/^250/);

    // half the budget held: a message that needs more than the rest is refused after its DATA
    const half = s.send(message(32 * KB - 200));
    await until(() => s.waiting.length === 1);
    const over = await s.send(message(40 * KB)).catch((e: { responseCode?: number }) => e);
    expect(over.responseCode).toBe(452);
    expect(s.outcomes).toContain("deferred_memory");
    s.releaseAll();
    await half;
    const again = s.send(message(40 * KB));
    await until(() => s.waiting.length === 1);
    s.releaseAll();
    expect((await again).response).toMatch(/^250/);
  });

  it("answers 552 beyond the size limit and hangs up on a client still sending at twice it", async () => {
    const s = await start({ maxBytes: 64 * KB });
    const big = await s.send(message(100 * KB)).catch((e: { responseCode?: number }) => e);
    expect(big.responseCode).toBe(552);
    const huge = await s.send(message(1024 * KB)).catch((e: { responseCode?: number; code?: string }) => e);
    expect(huge).toBeInstanceOf(Error);
    expect(huge.responseCode === 421 || huge.code === "ECONNECTION" || huge.code === "ESOCKET").toBe(true);
    expect(s.received).toHaveLength(0);
    expect(s.outcomes).toEqual(["too_big", "too_big"]);
  });
});

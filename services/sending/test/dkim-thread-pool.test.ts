import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import nodemailer from "nodemailer";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import dkimSign from "nodemailer/lib/dkim/sign";
import { DKIM_HEADERS } from "../src/domain/compose.js";

// Our patch of nodemailer (patches/nodemailer+*.patch) signs on libuv's thread pool when the DKIM
// options ask for it. RSASSA-PKCS1-v1_5 is deterministic, so the same message signed either way must
// carry the same DKIM-Signature, byte for byte.
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const publicDer = publicKey.export({ type: "spki", format: "der" }).toString("base64");

async function signed(dkim: Record<string, unknown>): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  const info = await transport.sendMail({
    from: "News <news@example.test>",
    to: "reader@example.test",
    subject: "Signed the same way",
    html: "<p>Hello</p>",
    date: new Date("2026-11-22T00:00:00Z"),
    messageId: "<fixed@bounces.example.test>",
    headers: { "List-Unsubscribe": "<https://mail.example.test/u/1>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    dkim: { domainName: "example.test", keySelector: "mr1", privateKey, headerFieldNames: DKIM_HEADERS, ...dkim } as never,
  });
  return info.message as Buffer;
}

const signature = (raw: Buffer) => /^DKIM-Signature:[\s\S]*?(?=\r\n\S)/m.exec(raw.toString("latin1"))?.[0];

describe("DKIM signing on the thread pool (nodemailer patch)", () => {
  it("gives the same signature as the event-loop path, and it verifies", async () => {
    expect(typeof (dkimSign as unknown as { onThreadPool?: unknown }).onThreadPool).toBe("function"); // the patch is applied: the other path is exercised
    const [onLoop, onPool] = await Promise.all([signed({}), signed({ signOnThreadPool: true })]);
    expect(signature(onPool)).toBeDefined();
    expect(signature(onPool)).toBe(signature(onLoop));
    expect(onPool.equals(onLoop)).toBe(true);
    const result = await dkimVerify(onPool, { resolver: async () => [[`v=DKIM1; k=rsa; p=${publicDer}`]] });
    expect(result.results[0]!.status.result).toBe("pass");
  });

  it("leaves a message unsigned, as the stock path does, when the key cannot sign", async () => {
    const { privateKey: edKey } = generateKeyPairSync("ed25519");
    const wrong = { privateKey: edKey };
    const [onLoop, onPool] = await Promise.all([signed(wrong), signed({ ...wrong, signOnThreadPool: true })]);
    expect(signature(onLoop)).toBeUndefined();
    expect(signature(onPool)).toBeUndefined();
  });

  it("fails the message for a hash algorithm crypto does not know, as the stock path does", async () => {
    await expect(signed({ hashAlgo: "nope256" })).rejects.toThrow(/Unsupported DKIM hash algorithm/);
    await expect(signed({ hashAlgo: "nope256", signOnThreadPool: true })).rejects.toThrow(/Unsupported DKIM hash algorithm/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { createRelay, type Relay } from "../src/delivery/transport.js";

/**
 * The relay's pool is shared by both delivery lanes, and nodemailer queues what it is handed in one
 * FIFO. A transactional message handed over while campaign messages wait must go out next, not
 * after all of them.
 */
describe("the relay's hand-over", () => {
  let mailbox: Mailbox;
  let relay: Relay;

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 1000 });
    mailbox.setDelay(100);
    relay = createRelay(mailbox.smtpUrl, 1);
  });
  afterAll(async () => {
    relay?.close();
    await mailbox?.stop();
  });

  const message = (to: string) => ({ from: "news@lanes.mailroom.test", to, subject: to, text: "hello" });

  it("sends a transactional message ahead of the bulk messages waiting for a connection", async () => {
    const bulk = Array.from({ length: 12 }, (_, i) => relay.send(message(`bulk${i}@example.com`), "bulk"));
    // the bulk sends are under way (one on the wire, one ready) before the transactional one comes
    await mailbox.waitFor((m) => m.envelope.rcptTo.includes("bulk0@example.com"), 10_000);
    const transactional = relay.send(message("reset@example.com"), "transactional");
    await Promise.all([...bulk, transactional]);

    const order = mailbox.messages().map((m) => m.envelope.rcptTo[0]);
    expect(order).toHaveLength(13);
    // At most two bulk messages are in nodemailer's hands when the reset comes (one on the wire,
    // one ready): it goes right after them, not after the other ten.
    expect(order.indexOf("reset@example.com")).toBeLessThanOrEqual(3);
    expect(order.filter((to) => to?.startsWith("bulk"))).toEqual(Array.from({ length: 12 }, (_, i) => `bulk${i}@example.com`));
  }, 30_000);
});

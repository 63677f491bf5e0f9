import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, apiClient } from "@mailroom/testkit";
import { campaignBody, createContacts, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

// A relay that refuses one recipient for good: that email ends FAILED (with email.failed), and the
// campaign must still reach SENT instead of waiting forever for it.
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
const platform = new Platform({ services: ["gateway", "contacts", "sending", "campaigns"] });

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
  platform.env.SMTP_URL = mailbox.smtpUrl;
  await platform.start();
});
afterAll(async () => {
  await platform.destroy();
  await mailbox?.stop();
});

describe("a campaign with a failed recipient", () => {
  it("ends SENT with the failure counted", async () => {
    const project = await platform.createProject("failures");
    const api = apiClient(platform.url, project.secretKey);
    const from = await verifiedSender(project.id, platform.env);
    const recipients = [uniqueAddress("a"), uniqueAddress("b"), uniqueAddress("c")];
    await createContacts(api, recipients.map((email) => ({ email, subscribed: true })));
    const created = await api.post("/campaigns", campaignBody(from));
    expect(created.status).toBe(200);
    mailbox.failNext(1, 550, "5.1.1 No such user");
    expect((await api.post(`/campaigns/${created.body.data.id}/send`, {})).status).toBe(200);
    const done = await waitForStatus(api, created.body.data.id, "SENT", 30_000);
    expect(done.stats.recipients).toBe(3);
    expect(done.stats.failed).toBe(1);
    expect(done.stats.sent).toBe(2);
    expect(mailbox.messages().filter((m) => recipients.includes(m.envelope.rcptTo[0]!))).toHaveLength(2);
  });
});

import { randomBytes } from "node:crypto";
import { addZones, apiClient, type ApiClient, waitFor } from "@mailroom/testkit";
import { createDashboardUser, type DashboardUser } from "@mailroom/testkit/browser";

export interface PlatformInfo {
  url: string;
  env: Record<string, string>;
  zonesFile: string;
}

export const uniqueAddress = (tag: string) => `${tag}-${randomBytes(5).toString("hex")}@example.com`;

/**
 * A project whose owner can sign in, with a sending domain verified through the test DNS server
 * (as services/sending/test does) and the project's secret key to send with, as an API user would.
 */
export async function sendingProject(platform: PlatformInfo): Promise<{ owner: DashboardUser; api: ApiClient; from: string }> {
  const owner = await createDashboardUser(platform.env);
  const api = apiClient(platform.url, owner.secretKey);
  const domain = `dash-${randomBytes(5).toString("hex")}.mailroom.test`;
  const created = await api.post("/domains", { domain });
  if (created.status !== 201) throw new Error(`POST /domains: ${created.status} ${JSON.stringify(created.body)}`);
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(platform.zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  const verified = await api.post(`/domains/${created.body.id}/verify`);
  if (verified.body.status !== "VERIFIED") throw new Error(`domain not verified: ${JSON.stringify(verified.body)}`);
  return { owner, api, from: `news@${domain}` };
}

/** Sends one email through /v1/send and waits until the sending service has handed it to SMTP. */
export async function sendEmail(api: ApiClient, o: { from: string; to: string; subject: string }) {
  const res = await api.post("/v1/send", { ...o, body: "<p>Hello from the dashboard tests</p>" });
  if (res.status !== 200) throw new Error(`POST /v1/send: ${res.status} ${JSON.stringify(res.body)}`);
  const emailId: string = res.body.data.emails[0].email;
  const contactId: string = res.body.data.emails[0].contact.id;
  await waitFor(async () => (await api.get(`/emails/${emailId}`)).body.status !== "QUEUED", { timeoutMs: 15_000, what: `email ${emailId} sent` });
  return { emailId, contactId };
}

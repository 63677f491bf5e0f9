import { randomBytes } from "node:crypto";
import { addZones, type ApiClient, waitFor } from "@mailroom/testkit";

export interface PlatformInfo {
  url: string;
  env: Record<string, string>;
  zonesFile: string;
}

export const uniqueAddress = (tag: string) => `${tag}-${randomBytes(5).toString("hex")}@example.com`;

/**
 * A sending domain of the project, verified through the test DNS server as services/sending tests
 * verify one; its name.
 */
export async function verifiedDomain(platform: PlatformInfo, api: ApiClient): Promise<string> {
  const domain = `dash-${randomBytes(5).toString("hex")}.mailroom.test`;
  const created = await api.post("/domains", { domain });
  if (created.status !== 201) throw new Error(`POST /domains: ${created.status} ${JSON.stringify(created.body)}`);
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(platform.zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  const verified = await api.post(`/domains/${created.body.id}/verify`);
  if (verified.body.status !== "VERIFIED") throw new Error(`domain not verified: ${JSON.stringify(verified.body)}`);
  return domain;
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

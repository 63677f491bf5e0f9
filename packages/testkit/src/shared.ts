import { inject } from "vitest";
import { apiClient } from "./http.js";
import { workerOperator } from "./operator.js";
import { sinkMessages } from "./mailbox.js";
import { Drain } from "./drain.js";
export * from "./index.js";

/** What the global setup provides to every test file (see test/global-setup.ts). */
export interface SharedPlatform {
  url: string;
  prefix: string;
  env: Record<string, string>;
  mailboxUrl: string;
  smtpUrl: string;
  dnsAddress: string;
  zonesFile: string;
  /** A webhook endpoint the platform may call (startWebhookSink; WEBHOOK_ALLOWED_HOSTS lists it). */
  webhookSinkUrl: string;
  /** The stand-in rspamd the platform's RSPAMD_URL points at (startFakeRspamd): `GET /requests` lists what it got. */
  rspamdUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    platform: SharedPlatform;
  }
}

export function sharedPlatform(): SharedPlatform {
  return inject("platform");
}

/** The worker's operator on the shared platform (`mailroom projects create`, `users create`; see GatewayOperator). */
export const sharedOperator = () => workerOperator(sharedPlatform().env);

/** A fresh project (its own tenant) on the shared platform, with clients for both keys. */
export async function newProject(name = "test") {
  const p = sharedPlatform();
  const project = await (await sharedOperator()).createProject(name);
  return { ...project, api: apiClient(p.url, project.secretKey), publicApi: apiClient(p.url, project.publicKey), anon: apiClient(p.url) };
}

/** Messages in the shared development mailbox (the SMTP sink): all, or only those to one of `to`. */
export const mailboxMessages = (to?: Iterable<string>) => sinkMessages(sharedPlatform().mailboxUrl, to);

/** A `Drain` of the shared platform, for waiting until its pipelines have done what a test set off. */
export const openDrain = () => Drain.open(sharedPlatform().env);

import { sendingRpc } from "@mailroom/contracts";
import { ExpiringMap, type RpcClient } from "@mailroom/kit";
import type { ContactRow } from "../db/contacts-repo.js";
import { confirmationKey, type ConfirmationMailer } from "./confirmation-mailer.js";

/**
 * Double opt-in (decisions.md §14) as the contacts service sees it. The setting belongs to the
 * sending service (PATCH /settings/sending), which also mails the confirmation: this asks it over
 * RPC, keeping each project's answer for a few seconds, because /v1/track with a public key is
 * browser traffic and should not cost an RPC per call. A project that turns it on waits at most
 * that long before new public subscriptions need confirming.
 */
export class DoubleOptInGate {
  private readonly cache = new ExpiringMap<string, boolean>(10_000, 5_000);

  constructor(
    private readonly rpc: RpcClient,
    private readonly mailer: ConfirmationMailer,
  ) {}

  async enabled(projectId: string): Promise<boolean> {
    const cached = this.cache.get(projectId);
    if (cached !== undefined) return cached;
    const enabled = await this.current(projectId);
    this.cache.set(projectId, enabled);
    return enabled;
  }

  /**
   * The setting as sending has it now, for a rare caller (a CSV import is made): neither read from
   * the cache nor kept in it, so it never holds back a change made just after it for the browser
   * traffic the cache is for.
   */
  async current(projectId: string): Promise<boolean> {
    const { enabled } = await this.rpc.call(sendingRpc.doubleOptIn, { projectId });
    return enabled;
  }

  /**
   * Mails the confirmation link, after the contact is committed. `attempt` names this subscription
   * request (the tracked event's id), so a retried call does not mail twice but a later request does.
   */
  confirm(contact: ContactRow, attempt: string): Promise<void> {
    return this.mailer.confirmNow({ key: confirmationKey(contact.id, attempt), projectId: contact.project_id, contactId: contact.id, email: contact.email });
  }
}

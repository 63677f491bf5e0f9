import { sendingRpc } from "@mailroom/contracts";
import { ExpiringMap, type Logger, type RpcClient } from "@mailroom/kit";
import type { ContactRow } from "../db/contacts-repo.js";

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
    private readonly log: Logger,
  ) {}

  async enabled(projectId: string): Promise<boolean> {
    const cached = this.cache.get(projectId);
    if (cached !== undefined) return cached;
    const { enabled } = await this.rpc.call(sendingRpc.doubleOptIn, { projectId });
    this.cache.set(projectId, enabled);
    return enabled;
  }

  /**
   * Mails the confirmation link, after the contact is committed. `attempt` names this subscription
   * request (the tracked event's id), so a retried call does not mail twice but a later request does.
   * A failure is logged, not thrown: the contact stays unsubscribed and the next subscription
   * request from the same address sends the link again.
   */
  async confirm(contact: ContactRow, attempt: string): Promise<void> {
    try {
      await this.rpc.call(sendingRpc.confirmationEmail, {
        projectId: contact.project_id,
        contactId: contact.id,
        to: contact.email,
        idempotencyKey: `confirm:${contact.id}:${attempt}`,
      });
    } catch (err) {
      this.log.warn({ err: String(err), contactId: contact.id }, "double opt-in: the confirmation email could not be queued");
    }
  }
}

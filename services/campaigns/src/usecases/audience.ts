import { AppError, contactsRpc, type ContactPageRpcReply } from "@mailroom/contracts";
import type { RpcClient } from "@mailroom/kit";
import type { Audience } from "../domain/campaign.js";

/**
 * The audience lives in the contacts service: subscribed contacts of the project, of a segment, or
 * matching a filter compiled to SQL there. This is the only place that asks it.
 */
export class AudienceSource {
  constructor(private readonly rpc: RpcClient) {}

  /** One keyset page after `afterId`; `ended` when no contact follows it. */
  async page(projectId: string, audience: Audience, afterId: string | null, limit: number): Promise<{ contacts: ContactPageRpcReply["contacts"]; ended: boolean }> {
    const reply = await this.rpc.call(contactsRpc.page, {
      projectId,
      limit,
      subscribedOnly: true,
      ...(afterId ? { afterId } : {}),
      ...(audience.type === "SEGMENT" ? { segmentId: audience.segmentId! } : {}),
      ...(audience.type === "FILTERED" ? { filter: audience.filter! } : {}),
      ...(audience.topicId ? { topicId: audience.topicId } : {}),
    });
    return { contacts: reply.contacts, ended: reply.nextAfterId === null };
  }

  /**
   * Checks at create, edit and send that the segment is one of the project's and that the filter
   * refers only to the project's segments, without cycles (its shape is already checked by the route
   * contract). The contacts service answers with paths of its own request, re-rooted here.
   */
  async validate(projectId: string, audience: Audience): Promise<void> {
    if (audience.type === "ALL" && !audience.topicId) return;
    const reply = await this.rpc.call(contactsRpc.validateFilter, {
      projectId,
      ...(audience.type === "SEGMENT" ? { segmentId: audience.segmentId! } : {}),
      ...(audience.type === "FILTERED" ? { filter: audience.filter! } : {}),
      ...(audience.topicId ? { topicId: audience.topicId } : {}),
    });
    if (reply.valid) return;
    const details = reply.details.map((d) => ({ ...d, path: d.path.replace(/^filter(?=\.|$)/, "audienceFilter") }));
    throw AppError.validation("Request validation failed", details);
  }
}

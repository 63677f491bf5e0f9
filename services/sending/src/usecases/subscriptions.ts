import { AppError, contactsRpc } from "@mailroom/contracts";
import type { RpcClient, Sql } from "@mailroom/kit";
import { confirmationsRepo } from "../db/confirmations-repo.js";
import { emailsRepo } from "../db/emails-repo.js";
import { CONFIRMATION_LINK_DAYS } from "../domain/confirmation-text.js";
import type { LinkKind, LinkSigner } from "../domain/links.js";
import type { Page } from "../domain/pages.js";
import type { SuppressionChecks } from "./lookups.js";

type Recipient = { id: string; projectId: string; contactId: string | null; campaignId: string | null; topicId: string | null; to: string; createdAt: Date };

const NOT_ON_FILE: Page = { title: "Nothing to change", message: "This address is no longer on the mailing list." };

/** The public subscription pages of decisions.md §6: unsubscribe, subscribe, manage topics, confirm (double opt-in). */
export class Subscriptions {
  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly links: LinkSigner,
    private readonly suppressions: SuppressionChecks,
  ) {}

  /** The email a subscription link names; a tampered or foreign token (or an unknown email) is 404. */
  private async recipientOf(kind: LinkKind, token: string): Promise<Recipient> {
    const t = this.links.verify(kind, token);
    const r = t ? await emailsRepo.recipient(this.sql, t.emailId, t.projectId) : null;
    if (!r) throw AppError.notFound("Link");
    return r;
  }

  /** Flips the flag through the contacts service (which emits contact.subscribed/unsubscribed on change). */
  private async setSubscribed(r: Recipient, value: boolean): Promise<boolean> {
    if (!r.contactId) return false;
    try {
      // the email travels on the event, so /stats and the campaign's stats count the unsubscribe
      const via = { emailId: r.id, campaignId: r.campaignId };
      await this.rpc.call(contactsRpc.setSubscription, { projectId: r.projectId, contactId: r.contactId, subscribed: value, via });
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") return false;
      throw err;
    }
    // Asking for mail again lifts a bounce at once (the contact.subscribed event would, a moment
    // later). Never a complaint: a tenant can put these links in any email it sends and word it as it
    // likes, so only the operator lifts one (`mailroom suppressions lift`, decisions.md §15).
    if (value) await this.suppressions.lift(r.projectId, [r.to], new Date(), false);
    return true;
  }

  private action(kind: LinkKind, r: Recipient, label: string) {
    return { url: this.links.url(kind, r.id, r.projectId), label };
  }

  async unsubscribePage(token: string): Promise<Page> {
    const r = await this.recipientOf("u", token);
    return {
      title: "Unsubscribe",
      address: r.to,
      message: "Do you want to stop receiving these emails?",
      action: { url: this.links.url("u", r.id, r.projectId), label: "Unsubscribe" },
    };
  }

  /** A topic campaign's unsubscribe leaves that topic only; the contact stays on every other list. */
  private async leaveTopic(r: Recipient & { topicId: string }): Promise<Page> {
    if (!r.contactId) return NOT_ON_FILE;
    const { topics } = await this.rpc.call(contactsRpc.topics, { projectId: r.projectId });
    const topic = topics.find((t) => t.id === r.topicId);
    if (!topic) return { title: "Nothing to change", address: r.to, message: "This topic no longer exists." };
    try {
      const via = { emailId: r.id, campaignId: r.campaignId };
      await this.rpc.call(contactsRpc.setTopics, { projectId: r.projectId, contactId: r.contactId, topics: { [r.topicId]: false }, via });
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") return NOT_ON_FILE;
      throw err;
    }
    return {
      title: "You are unsubscribed",
      address: r.to,
      message: `You will not receive "${topic.name}" emails any more.`,
      secondary: this.action("m", r, "Choose your topics"),
    };
  }

  async unsubscribe(token: string): Promise<Page> {
    const r = await this.recipientOf("u", token);
    if (r.topicId) return this.leaveTopic({ ...r, topicId: r.topicId });
    if (!(await this.setSubscribed(r, false))) return NOT_ON_FILE;
    return {
      title: "You are unsubscribed",
      address: r.to,
      message: "You will not receive these emails any more.",
      secondary: this.action("s", r, "Unsubscribed by mistake? Subscribe again"),
    };
  }

  async subscribePage(token: string): Promise<Page> {
    const r = await this.recipientOf("s", token);
    return { title: "Subscribe", address: r.to, message: "Do you want to receive these emails?", action: this.action("s", r, "Subscribe") };
  }

  async subscribe(token: string): Promise<Page> {
    const r = await this.recipientOf("s", token);
    if (!(await this.setSubscribed(r, true))) return NOT_ON_FILE;
    return {
      title: "You are subscribed",
      address: r.to,
      message: "You will receive these emails again.",
      secondary: this.action("u", r, "Unsubscribe"),
    };
  }

  /** The contact and the project's topics, each checked by the contact's choice or else its default. */
  private async contactWithTopics(r: Recipient) {
    if (!r.contactId) return null;
    const [{ contact }, { topics }] = await Promise.all([
      this.rpc.call(contactsRpc.get, { projectId: r.projectId, id: r.contactId }),
      this.rpc.call(contactsRpc.topics, { projectId: r.projectId }),
    ]);
    if (!contact) return null;
    const items = topics.map((t) => ({ id: t.id, name: t.name, description: t.description, checked: contact.topics[t.id] ?? t.defaultSubscribed }));
    return { contact, items };
  }

  private manageView(r: Recipient, subscribedNow: boolean, items: NonNullable<Page["topics"]>["items"], saved = false): Page {
    const topics = { url: this.links.url("m", r.id, r.projectId), items };
    const status = subscribedNow ? "You are subscribed to these emails." : "You are not subscribed to these emails.";
    return {
      title: "Your subscription",
      address: r.to,
      message: saved ? `Your topics are saved. ${status}` : status,
      topics,
      action: subscribedNow ? this.action("u", r, "Unsubscribe from everything") : this.action("s", r, "Subscribe"),
    };
  }

  async managePage(token: string): Promise<Page> {
    const r = await this.recipientOf("m", token);
    const found = await this.contactWithTopics(r);
    if (!found) return NOT_ON_FILE;
    return this.manageView(r, found.contact.subscribed, found.items);
  }

  /**
   * The manage page's form: `topic=<id>` for each checked box (an unchecked box sends nothing, so
   * every topic shown and not sent is a "no"). Only the project's current topics are set.
   */
  async saveTopics(token: string, body: unknown): Promise<Page> {
    const r = await this.recipientOf("m", token);
    const found = await this.contactWithTopics(r);
    if (!found || !r.contactId) return NOT_ON_FILE;
    const checked = new Set(new URLSearchParams(typeof body === "string" ? body : "").getAll("topic"));
    const choices = Object.fromEntries(found.items.map((i) => [i.id, checked.has(i.id)]));
    const via = { emailId: r.id, campaignId: r.campaignId };
    await this.rpc.call(contactsRpc.setTopics, { projectId: r.projectId, contactId: r.contactId, topics: choices, via });
    return this.manageView(r, found.contact.subscribed, found.items.map((i) => ({ ...i, checked: choices[i.id]! })), true);
  }

  /** Double opt-in: a GET only shows the button (mail scanners fetch links), or says why the link no longer works. */
  async confirmPage(token: string): Promise<Page> {
    const r = await this.recipientOf("k", token);
    if (expired(r)) return { ...EXPIRED, address: r.to };
    if (await confirmationsRepo.used(this.sql, r.id)) return { ...USED, address: r.to };
    return { title: "Confirm your subscription", address: r.to, message: "Do you want to receive these emails?", action: this.action("k", r, "Confirm") };
  }

  /**
   * The click that subscribes, once: the link is marked used before the call (so two clicks at once
   * subscribe once) and works again if the call fails. contact.subscribed is emitted by the contacts
   * service (naming this email). A used link cannot subscribe a contact that unsubscribed since.
   */
  async confirm(token: string): Promise<Page> {
    const r = await this.recipientOf("k", token);
    if (expired(r)) return { ...EXPIRED, address: r.to };
    if (!(await confirmationsRepo.use(this.sql, r.id))) return { ...USED, address: r.to };
    let subscribed: boolean;
    try {
      subscribed = await this.setSubscribed(r, true);
    } catch (err) {
      await confirmationsRepo.unuse(this.sql, r.id).catch(() => undefined);
      throw err;
    }
    if (!subscribed) return NOT_ON_FILE;
    return { title: "You are subscribed", address: r.to, message: "Thank you: your subscription is confirmed.", secondary: this.action("u", r, "Unsubscribe") };
  }
}

const USED: Page = { title: "Link already used", message: "This confirmation link was used already, so it changes nothing now." };
const EXPIRED: Page = {
  title: "Link expired",
  message: `This confirmation link has expired (it works for ${CONFIRMATION_LINK_DAYS} days), so it changes nothing now.`,
};

/** A confirmation link works once, for CONFIRMATION_LINK_DAYS after its email (decisions.md §15). */
const expired = (r: Recipient) => Date.now() - r.createdAt.getTime() > CONFIRMATION_LINK_DAYS * 86_400_000;

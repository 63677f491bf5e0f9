import { AppError, contactsRpc } from "@mailroom/contracts";
import { confirmationsRepo } from "../db/confirmations-repo.js";
import { emailsRepo } from "../db/emails-repo.js";
import { suppressionsRepo } from "../db/suppressions-repo.js";
import { CONFIRMATION_LINK_DAYS } from "../domain/confirmation-text.js";
import type { LinkKind } from "../domain/links.js";
import type { Page } from "../domain/pages.js";
import type { Ctx } from "./context.js";

type Recipient = { id: string; projectId: string; contactId: string | null; campaignId: string | null; topicId: string | null; to: string; createdAt: Date };

/** The email a subscription link names; a tampered or foreign token (or an unknown email) is 404. */
async function recipientOf(ctx: Ctx, kind: LinkKind, token: string): Promise<Recipient> {
  const t = ctx.links.verify(kind, token);
  const r = t ? await emailsRepo.recipient(ctx.sql, t.emailId, t.projectId) : null;
  if (!r) throw AppError.notFound("Link");
  return r;
}

const NOT_ON_FILE: Page = { title: "Nothing to change", message: "This address is no longer on the mailing list." };

/** Flips the flag through the contacts service (which emits contact.subscribed/unsubscribed on change). */
async function setSubscribed(ctx: Ctx, r: Recipient, value: boolean): Promise<boolean> {
  if (!r.contactId) return false;
  try {
    // the email travels on the event, so /stats and the campaign's stats count the unsubscribe
    const via = { emailId: r.id, campaignId: r.campaignId };
    await ctx.rpc.call(contactsRpc.setSubscription, { projectId: r.projectId, contactId: r.contactId, subscribed: value, via });
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return false;
    throw err;
  }
  // Asking for mail again lifts a bounce at once (the contact.subscribed event would, a moment
  // later). Never a complaint: a tenant can put these links in any email it sends and word it as it
  // likes, so only the operator lifts one (`mailroom suppressions lift`, decisions.md §15).
  if (value) await suppressionsRepo.lift(ctx.sql, r.projectId, [r.to], new Date(), ["bounce"]);
  return true;
}

const action = (ctx: Ctx, kind: LinkKind, r: Recipient, label: string) => ({ url: ctx.links.url(kind, r.id, r.projectId), label });

export async function unsubscribePage(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "u", token);
  return {
    title: "Unsubscribe",
    address: r.to,
    message: "Do you want to stop receiving these emails?",
    action: { url: ctx.links.url("u", r.id, r.projectId), label: "Unsubscribe" },
  };
}

/** A topic campaign's unsubscribe leaves that topic only; the contact stays on every other list. */
async function leaveTopic(ctx: Ctx, r: Recipient & { topicId: string }): Promise<Page> {
  if (!r.contactId) return NOT_ON_FILE;
  const { topics } = await ctx.rpc.call(contactsRpc.topics, { projectId: r.projectId });
  const topic = topics.find((t) => t.id === r.topicId);
  if (!topic) return { title: "Nothing to change", address: r.to, message: "This topic no longer exists." };
  try {
    const via = { emailId: r.id, campaignId: r.campaignId };
    await ctx.rpc.call(contactsRpc.setTopics, { projectId: r.projectId, contactId: r.contactId, topics: { [r.topicId]: false }, via });
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return NOT_ON_FILE;
    throw err;
  }
  return {
    title: "You are unsubscribed",
    address: r.to,
    message: `You will not receive "${topic.name}" emails any more.`,
    secondary: action(ctx, "m", r, "Choose your topics"),
  };
}

export async function unsubscribe(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "u", token);
  if (r.topicId) return leaveTopic(ctx, { ...r, topicId: r.topicId });
  if (!(await setSubscribed(ctx, r, false))) return NOT_ON_FILE;
  return {
    title: "You are unsubscribed",
    address: r.to,
    message: "You will not receive these emails any more.",
    secondary: action(ctx, "s", r, "Unsubscribed by mistake? Subscribe again"),
  };
}

export async function subscribePage(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "s", token);
  return { title: "Subscribe", address: r.to, message: "Do you want to receive these emails?", action: action(ctx, "s", r, "Subscribe") };
}

export async function subscribe(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "s", token);
  if (!(await setSubscribed(ctx, r, true))) return NOT_ON_FILE;
  return {
    title: "You are subscribed",
    address: r.to,
    message: "You will receive these emails again.",
    secondary: action(ctx, "u", r, "Unsubscribe"),
  };
}

/** The contact and the project's topics, each checked by the contact's choice or else its default. */
async function contactWithTopics(ctx: Ctx, r: Recipient) {
  if (!r.contactId) return null;
  const [{ contact }, { topics }] = await Promise.all([
    ctx.rpc.call(contactsRpc.get, { projectId: r.projectId, id: r.contactId }),
    ctx.rpc.call(contactsRpc.topics, { projectId: r.projectId }),
  ]);
  if (!contact) return null;
  const items = topics.map((t) => ({ id: t.id, name: t.name, description: t.description, checked: contact.topics[t.id] ?? t.defaultSubscribed }));
  return { contact, items };
}

function manageView(ctx: Ctx, r: Recipient, subscribedNow: boolean, items: NonNullable<Page["topics"]>["items"], saved = false): Page {
  const topics = { url: ctx.links.url("m", r.id, r.projectId), items };
  const status = subscribedNow ? "You are subscribed to these emails." : "You are not subscribed to these emails.";
  return {
    title: "Your subscription",
    address: r.to,
    message: saved ? `Your topics are saved. ${status}` : status,
    topics,
    action: subscribedNow ? action(ctx, "u", r, "Unsubscribe from everything") : action(ctx, "s", r, "Subscribe"),
  };
}

export async function managePage(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "m", token);
  const found = await contactWithTopics(ctx, r);
  if (!found) return NOT_ON_FILE;
  return manageView(ctx, r, found.contact.subscribed, found.items);
}

/**
 * The manage page's form: `topic=<id>` for each checked box (an unchecked box sends nothing, so
 * every topic shown and not sent is a "no"). Only the project's current topics are set.
 */
export async function saveTopics(ctx: Ctx, token: string, body: unknown): Promise<Page> {
  const r = await recipientOf(ctx, "m", token);
  const found = await contactWithTopics(ctx, r);
  if (!found || !r.contactId) return NOT_ON_FILE;
  const checked = new Set(new URLSearchParams(typeof body === "string" ? body : "").getAll("topic"));
  const choices = Object.fromEntries(found.items.map((i) => [i.id, checked.has(i.id)]));
  const via = { emailId: r.id, campaignId: r.campaignId };
  await ctx.rpc.call(contactsRpc.setTopics, { projectId: r.projectId, contactId: r.contactId, topics: choices, via });
  return manageView(ctx, r, found.contact.subscribed, found.items.map((i) => ({ ...i, checked: choices[i.id]! })), true);
}

const USED: Page = { title: "Link already used", message: "This confirmation link was used already, so it changes nothing now." };
const EXPIRED: Page = {
  title: "Link expired",
  message: `This confirmation link has expired (it works for ${CONFIRMATION_LINK_DAYS} days), so it changes nothing now.`,
};

/** A confirmation link works once, for CONFIRMATION_LINK_DAYS after its email (decisions.md §15). */
const expired = (r: Recipient) => Date.now() - r.createdAt.getTime() > CONFIRMATION_LINK_DAYS * 86_400_000;

/** Double opt-in: a GET only shows the button (mail scanners fetch links), or says why the link no longer works. */
export async function confirmPage(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "k", token);
  if (expired(r)) return { ...EXPIRED, address: r.to };
  if (await confirmationsRepo.used(ctx.sql, r.id)) return { ...USED, address: r.to };
  return { title: "Confirm your subscription", address: r.to, message: "Do you want to receive these emails?", action: action(ctx, "k", r, "Confirm") };
}

/**
 * The click that subscribes, once: the link is marked used before the call (so two clicks at once
 * subscribe once) and works again if the call fails. contact.subscribed is emitted by the contacts
 * service (naming this email). A used link cannot subscribe a contact that unsubscribed since.
 */
export async function confirm(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "k", token);
  if (expired(r)) return { ...EXPIRED, address: r.to };
  if (!(await confirmationsRepo.use(ctx.sql, r.id))) return { ...USED, address: r.to };
  let subscribed: boolean;
  try {
    subscribed = await setSubscribed(ctx, r, true);
  } catch (err) {
    await confirmationsRepo.unuse(ctx.sql, r.id).catch(() => undefined);
    throw err;
  }
  if (!subscribed) return NOT_ON_FILE;
  return { title: "You are subscribed", address: r.to, message: "Thank you: your subscription is confirmed.", secondary: action(ctx, "u", r, "Unsubscribe") };
}

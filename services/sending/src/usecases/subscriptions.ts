import { AppError, contactsRpc } from "@mailroom/contracts";
import { emailsRepo } from "../db/emails-repo.js";
import { suppressionsRepo } from "../db/suppressions-repo.js";
import type { LinkKind } from "../domain/links.js";
import type { Page } from "../domain/pages.js";
import type { Ctx } from "./context.js";

type Recipient = { id: string; projectId: string; contactId: string | null; campaignId: string | null; to: string };

/** The email a subscription link names; a tampered or foreign token (or an unknown email) is 404. */
async function recipientOf(ctx: Ctx, kind: LinkKind, token: string): Promise<Recipient> {
  const t = ctx.links.verify(kind, token);
  const r = t ? await emailsRepo.recipient(ctx.sql, t.emailId, t.projectId) : null;
  if (!r) throw AppError.notFound("Link");
  return r;
}

/** The contact's current flag, or null when the email has no contact (deleted, or a test copy). */
async function subscribed(ctx: Ctx, r: Recipient): Promise<boolean | null> {
  if (!r.contactId) return null;
  const { contact } = await ctx.rpc.call(contactsRpc.get, { projectId: r.projectId, id: r.contactId });
  return contact ? contact.subscribed : null;
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
  // The recipient asking for mail again lifts a bounce or complaint suppression at once (the event
  // lifts only bounces: it cannot tell this page from a call made with an API key).
  if (value) await suppressionsRepo.lift(ctx.sql, r.projectId, [r.to], new Date(), ["bounce", "complaint"]);
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

export async function unsubscribe(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "u", token);
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

export async function managePage(ctx: Ctx, token: string): Promise<Page> {
  const r = await recipientOf(ctx, "m", token);
  const state = await subscribed(ctx, r);
  if (state === null) return NOT_ON_FILE;
  return state
    ? { title: "Your subscription", address: r.to, message: "You are subscribed to these emails.", action: action(ctx, "u", r, "Unsubscribe") }
    : { title: "Your subscription", address: r.to, message: "You are not subscribed to these emails.", action: action(ctx, "s", r, "Subscribe") };
}

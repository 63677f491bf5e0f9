import type { EntryPoint } from "./data-rules.js";

export type SubscriptionEvent = "contact.subscribed" | "contact.unsubscribed";
export type UnsubscribeReason = "bounce" | "complaint";
/** The email whose link changed the subscription. */
export type SubscriptionVia = { emailId: string; campaignId: string | null };

/** A new contact's value when the call does not say (api-spec "Contact subscription"). */
export const INITIAL_SUBSCRIBED: Readonly<Record<EntryPoint, boolean>> = { send: false, track: true, api: true };

export function initialSubscription(entry: EntryPoint, given: boolean | undefined): boolean {
  return given ?? INITIAL_SUBSCRIBED[entry];
}

/**
 * Double opt-in (decisions.md §14): whether a write asks to subscribe someone who is not subscribed,
 * so that they get a confirmation link instead. `current` is the contact's value, undefined for a
 * contact the write creates (which then asks unless it says `subscribed: false`, or its entry point
 * creates contacts unsubscribed).
 */
export function asksToSubscribe(current: boolean | undefined, given: boolean | undefined, entry: EntryPoint): boolean {
  return current === undefined ? initialSubscription(entry, given) : !current && given === true;
}

export interface SubscriptionTransition {
  subscribed: boolean;
  /** Emitted only when the value actually changes. */
  event: SubscriptionEvent | null;
}

/**
 * Whose call it is. A public key (`pk_`) sits in web pages, where anyone can read it, so it may
 * unsubscribe a contact but never resubscribe one (decisions.md §12): that would let anyone put an
 * address that left back on a mailing list.
 */
export type Caller = "secret" | "public";

/**
 * An existing contact: an omitted value keeps the current one; only a change emits an event. A
 * public key's `true` for an unsubscribed contact is ignored (the rest of its write applies).
 */
export function transition(current: boolean, given: boolean | undefined, caller: Caller = "secret"): SubscriptionTransition {
  if (given === undefined || given === current) return { subscribed: current, event: null };
  if (given && caller === "public") return { subscribed: current, event: null };
  return { subscribed: given, event: given ? "contact.subscribed" : "contact.unsubscribed" };
}

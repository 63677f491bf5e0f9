import type { EntryPoint } from "./data-rules.js";

export type SubscriptionEvent = "contact.subscribed" | "contact.unsubscribed";
export type UnsubscribeReason = "bounce" | "complaint";

/** A new contact's value when the call does not say (api-spec "Contact subscription"). */
export const INITIAL_SUBSCRIBED: Readonly<Record<EntryPoint, boolean>> = { send: false, track: true, api: true };

export function initialSubscription(entry: EntryPoint, given: boolean | undefined): boolean {
  return given ?? INITIAL_SUBSCRIBED[entry];
}

export interface SubscriptionTransition {
  subscribed: boolean;
  /** Emitted only when the value actually changes. */
  event: SubscriptionEvent | null;
}

/** An existing contact: an omitted value keeps the current one; only a change emits an event. */
export function transition(current: boolean, given: boolean | undefined): SubscriptionTransition {
  if (given === undefined || given === current) return { subscribed: current, event: null };
  return { subscribed: given, event: given ? "contact.subscribed" : "contact.unsubscribed" };
}

/** What running one step decided; the engine turns it into state in one transaction. */
export type Outcome =
  | { kind: "next"; branch?: "yes" | "no" }
  | { kind: "wait"; dueAt: Date | null; waitEvent: string | null }
  | { kind: "exit"; reason: string | null }
  | { kind: "fail"; error: string };

/** A failure that may pass (a service did not answer): the step is tried again later, not failed. */
export class TransientError extends Error {}

/** The replica is shutting down and cut the step short before its effect was known: it runs again elsewhere. */
export class Interrupted extends Error {}

import { z } from "zod";

/** Bytes of the original message a dead letter carries at most (the rest is cut, `truncated` set). */
export const DEAD_LETTER_DATA_BYTES = 64 * 1024;

/**
 * A message a durable consumer gave up on (decisions.md §12): poison, or still failing after its
 * attempts. Published on `subjects.deadLetter(consumer)` into the DEAD_LETTERS stream. Operators and
 * replay tools read it: add fields, never rename or remove one.
 */
export const DeadLetter = z.object({
  /** The durable consumer that gave up. */
  consumer: z.string(),
  stream: z.string(),
  /** Sequence of the original message in `stream` (with `stream`, what a replay looks up). */
  streamSequence: z.number().int(),
  /** The original message's subject. */
  subject: z.string(),
  /** The message's body as UTF-8 text, its first DEAD_LETTER_DATA_BYTES bytes at most. */
  data: z.string(),
  /** Size of the original body in bytes. */
  dataBytes: z.number().int().min(0),
  truncated: z.boolean(),
  /** Why it was given up: the handler's error message, or that its attempts were used up. */
  reason: z.string(),
  /** Deliveries the message had, this one included. */
  attempts: z.number().int().min(1),
  /** ISO time it was given up. */
  at: z.string(),
});
export type DeadLetter = z.infer<typeof DeadLetter>;

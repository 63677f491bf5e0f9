/**
 * SQLSTATEs worth one more try of a whole transaction: a deadlock or serialization failure, and a
 * foreign-key miss when a contact was deleted between reading it and recording it as a member.
 */
const TRANSIENT = new Set(["40P01", "40001", "23503"]);

export async function retryTransient<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !TRANSIENT.has((err as { code?: string })?.code ?? "")) throw err;
    }
  }
}

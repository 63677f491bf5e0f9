/**
 * Message counts of the suite: the defaults keep the whole suite within about 8 minutes on a shared
 * 2-core machine; FAULTS_SCALE multiplies them (FAULTS_SCALE=5 gives the 10,000 recipients).
 */
export function scaled(n: number): number {
  const factor = Number(process.env.FAULTS_SCALE ?? 1);
  return Math.max(1, Math.round(n * (Number.isFinite(factor) && factor > 0 ? factor : 1)));
}

export const address = (tag: string, i: number, run: string) => `${tag}-${run}-${i}@example.com`;

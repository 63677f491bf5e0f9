/**
 * Bytes of messages held in memory across all connections of an SMTP server (sending's inbound
 * server, the gateway's relay): memory is bounded by this, not by clients × message size. A taker
 * that cannot get room answers "try again later" and gives back what it took.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get full(): boolean {
    return this.used >= this.limit;
  }

  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }
}

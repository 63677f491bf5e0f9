/**
 * How many of a campaign's recipients may be queued for delivery and not yet ended (sent, failed or
 * bounced). SEND_JOBS is one FIFO: a campaign that queued its whole audience at once would make
 * every campaign started after it wait for all of it. With a window, each running campaign holds only
 * its share of the queue, so a new campaign's first emails go out after at most `seconds` of others'
 * mail, and campaigns running together deliver at the same rate.
 */
export interface WindowSettings {
  /** Seconds of bulk delivery, at the lane's current rate, that may wait in the queue in all. */
  seconds: number;
  /** Floor per campaign: what a campaign queues before there is any rate to go by. */
  min: number;
  /** Ceiling per campaign. */
  max: number;
}

/** The running fan-outs as the database sees them (fanoutRepo.lane). */
export interface LaneState {
  /** Sum of the running campaigns' delivery rates (emails/s). */
  totalRate: number;
  /** Projects with a running fan-out. */
  projects: number;
  /** This campaign's project's running fan-outs (this one included). */
  projectCampaigns: number;
}

/**
 * The queue's worth of `seconds` at the lane's rate, split evenly between projects, then between a
 * project's campaigns: a project does not get more of the queue by running more campaigns. Sized by
 * the rate, a campaign alone keeps the workers busy however many replicas deliver, as long as
 * `seconds` exceeds the time from enqueue to the stats counting the email (about a second or two): a
 * window W delivers W per that time, and W grows with the rate it measures.
 */
export function sendWindow(s: WindowSettings, lane: LaneState): number {
  const share = (s.seconds * lane.totalRate) / Math.max(1, lane.projects) / Math.max(1, lane.projectCampaigns);
  return Math.round(Math.min(s.max, Math.max(s.min, share)));
}

/**
 * A campaign's delivery rate from samples of its `ended` counter, over the last `spanMs`. The stats
 * consumer applies events in batches (up to 500, or a second's worth), so shorter spans would see
 * its steps rather than the rate.
 */
export class RateMeter {
  private readonly samples: Array<{ at: number; ended: number }> = [];

  constructor(
    private rate: number,
    private readonly spanMs = 5000,
  ) {}

  /** Adds a sample and answers the rate (emails/s); the last rate until a second of samples exists. */
  add(at: number, ended: number): number {
    this.samples.push({ at, ended });
    // keep the newest sample older than the span: the rate then covers the whole span
    while (this.samples.length > 2 && this.samples[1]!.at <= at - this.spanMs) this.samples.shift();
    const first = this.samples[0]!;
    if (at - first.at >= 1000) this.rate = Math.max(0, (ended - first.ended) / ((at - first.at) / 1000));
    return this.rate;
  }

  current(): number {
    return this.rate;
  }
}

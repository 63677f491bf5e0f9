import { setImmediate as nextTurn } from "node:timers/promises";
import { MAX_LIQUID_MARKUP, liquidMarkupCount } from "@mailroom/contracts";

/**
 * How long one render may run. liquidjs renders without yielding (no filter of ours is async), so
 * this is how long a render can hold the event loop; the check runs between template nodes, and
 * the memory bound keeps a single node (a filter over a big array) to about as long again.
 */
export const LIQUID_RENDER_LIMIT_MS = 150;

/**
 * The options every Liquid engine of Mailroom starts from, because templates (email bodies, WEBHOOK
 * urls and bodies) are written through the API. `templates: {}` keeps {% include %} and {% render %}
 * inside an empty in-memory map (liquidjs's default reads files of the working directory).
 * `memoryLimit` counts characters and array elements a render allocates (escaped output, filters,
 * ranges): 2 M of them is far beyond any email, and a range of that many numbers is still a few
 * megabytes, where the former 64 M let `{% assign r = (1..60000000) %}` exhaust a service's heap.
 * `parseLimit` only has to stay out of the way: sources are bounded by the contracts (1 MB and
 * MAX_LIQUID_MARKUP tags), and `??` shorthand grows them a little before parsing.
 */
export const liquidBounds = () => ({
  templates: {},
  parseLimit: 8 * 1024 * 1024,
  renderLimit: LIQUID_RENDER_LIMIT_MS,
  memoryLimit: 2 * 1024 * 1024,
});

/** liquidjs's message when a render ran past `renderLimit` or `memoryLimit`. */
export function isLiquidLimitError(err: unknown): boolean {
  return err instanceof Error && /\b(template render|memory alloc) limit exceeded\b/.test(err.message);
}

/**
 * Runs `render` and, when it ran past its time bound, once more after the event loop has had a
 * turn. The bound is wall-clock time (liquidjs compares performance.now()), so a pause of the whole
 * process in the middle of a render of microseconds (a major garbage collection, a CPU-throttled
 * container) would otherwise fail a template that renders fine; a template that really runs away
 * fails twice, each time holding the loop no longer than the bound.
 */
export async function retryPastTimeLimit<T>(render: () => Promise<T>): Promise<T> {
  try {
    return await render();
  } catch (err) {
    if (!(err instanceof Error && /\btemplate render limit exceeded\b/.test(err.message))) throw err;
    await nextTurn();
    return render();
  }
}

/**
 * Why `source` must not be parsed (too many tags and outputs: see MAX_LIQUID_MARKUP), or null.
 * Sources are checked by the contracts on the way in; this covers ones stored before that rule.
 */
export function liquidSourceProblem(source: string): string | null {
  return liquidMarkupCount(source) > MAX_LIQUID_MARKUP ? `has more than ${MAX_LIQUID_MARKUP} Liquid tags and outputs` : null;
}

/**
 * Parsed templates by source, bounded by the sum of the sources' lengths rather than by a count:
 * one entry may be a few bytes or a megabyte, and a parsed template weighs about 10 to 150 times
 * its source (densest for `{{a}}` repeated). Sources longer than `maxEntryChars` are not kept.
 * The entries stored earliest go first (as BoundedMap's): `get` stays one Map lookup on the send path.
 */
export class LiquidParseCache<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(
    private readonly maxChars: number,
    private readonly maxEntryChars = Math.floor(maxChars / 8),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Sum of the lengths of the sources held. */
  get sourceChars(): number {
    return this.chars;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (key.length > this.maxEntryChars) return;
    if (this.entries.delete(key)) this.chars -= key.length;
    for (const oldest of this.entries.keys()) {
      if (this.chars + key.length <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
    this.entries.set(key, value);
    this.chars += key.length;
  }
}

import { useState } from "react";

/**
 * Cursor paging forward and back: the API only gives the next page's cursor, so the cursors seen on
 * the way are kept and "Previous" steps back through them. A new `resetKey` (a search, a filter)
 * starts again at the first page.
 */
export function useCursorTrail(resetKey: string) {
  const [state, setState] = useState<{ key: string; trail: (string | undefined)[] }>({ key: resetKey, trail: [undefined] });
  const trail = state.key === resetKey ? state.trail : [undefined];
  return {
    cursor: trail[trail.length - 1],
    page: trail.length,
    hasPrevious: trail.length > 1,
    next: (cursor: string) => setState({ key: resetKey, trail: [...trail, cursor] }),
    previous: () => setState({ key: resetKey, trail: trail.slice(0, -1) }),
  };
}

export type CursorTrail = ReturnType<typeof useCursorTrail>;

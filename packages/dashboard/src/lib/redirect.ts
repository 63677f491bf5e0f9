/**
 * Where to go after signing in: only a path inside the app (router-relative, `/contacts?x=1`), so a
 * crafted `next` cannot send the user to another site (`//evil.example`, `https://…`, `/\evil`).
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  if (/[\u0000-\u001f]/.test(next)) return "/";
  if (next === "/sign-in" || next.startsWith("/sign-in?") || next.startsWith("/invite")) return "/";
  return next;
}

/** The sign-in page that brings the user back to `current` (a router-relative path) afterwards. */
export function signInPath(current: string): string {
  const next = safeNext(current);
  return next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`;
}

/** `/app/contacts?x=1` → `/contacts?x=1`: the router-relative path of a browser location. */
export function appRelative(pathname: string, search: string, basename = "/app"): string {
  const path = pathname === basename || pathname.startsWith(`${basename}/`) ? pathname.slice(basename.length) || "/" : pathname;
  return `${path}${search}`;
}

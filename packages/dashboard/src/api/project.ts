import type { ProjectMembership } from "@mailroom/contracts";

const KEY = "mailroom.project";
const listeners = new Set<() => void>();

function read(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage disabled (private mode, policy): the choice lasts for this page only
  }
}

let current: string | null = typeof localStorage === "undefined" ? null : read();

/**
 * The project the dashboard acts on, kept outside React so the API client can read it for the
 * `X-Mailroom-Project` header, and remembered across visits.
 */
export const projectStore = {
  get: (): string | null => current,
  set(id: string | null): void {
    if (id === current) return;
    current = id;
    try {
      if (id) localStorage.setItem(KEY, id);
      else localStorage.removeItem(KEY);
    } catch {
      // see read()
    }
    for (const l of listeners) l();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The remembered project when the user still belongs to it, else their first one. */
export function pickProject(projects: readonly ProjectMembership[], remembered: string | null): ProjectMembership | null {
  return projects.find((p) => p.id === remembered) ?? projects[0] ?? null;
}

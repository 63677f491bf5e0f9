import type { Sql } from "@mailroom/kit";
import { keysRepo } from "../db/keys-repo.js";

export interface CreatedProject {
  id: string;
  name: string;
  /** Both keys are shown this once: only their hashes are kept. */
  secretKey: string;
  publicKey: string;
}

/**
 * `mailroom projects create` (decisions.md §13): a project and its first secret and public keys.
 * An Error names a bad argument.
 */
export async function createProject(sql: Sql, name: string | undefined): Promise<CreatedProject | Error> {
  const trimmed = name?.trim();
  if (!trimmed) return new Error("--name is required");
  return keysRepo.createProject(sql, trimmed);
}

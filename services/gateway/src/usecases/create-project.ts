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
  const valid = projectName(name);
  return valid instanceof Error ? valid : keysRepo.createProject(sql, valid);
}

/** The name a project is created with, or the Error naming what is wrong: checked before any connection is made. */
export function projectName(name: string | undefined): string | Error {
  return name?.trim() || new Error("--name is required");
}

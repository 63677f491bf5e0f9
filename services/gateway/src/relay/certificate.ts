import { readFile } from "node:fs/promises";

/**
 * SMTP_RELAY_TLS_CERT/_KEY hold the PEM itself (an environment variable from a secret) or the path
 * of a file holding it (a mounted Kubernetes Secret, `npm start`'s generated pair).
 */
export async function pemOf(value: string): Promise<string> {
  return value.includes("-----BEGIN") ? value : readFile(value, "utf8");
}

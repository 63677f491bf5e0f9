import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
// @ts-expect-error plain ESM script without type declarations
import { helmBinary } from "../../../scripts/helm.mjs";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

// Rendered Kubernetes objects are checked field by field; a full typing would add nothing.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Manifest = { kind: string; metadata: { name: string; annotations?: Record<string, string> }; [k: string]: any };

export interface WireNames {
  streams: Record<"events" | "sendJobs" | "contactChanges", { name: string }>;
  consumers: Record<string, string>;
}

export async function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin: string = await helmBinary();
  return new Promise((resolve) => {
    execFile(bin, args, { maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function render(chart: string, release: string, args: string[] = []): Promise<Manifest[]> {
  const result = await helm(["template", release, chart, ...args]);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0];
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function kinds(manifests: Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

/**
 * wireNames() from packages/contracts, so the chart is checked against the names the services
 * really use: the built package when present, else its TypeScript source compiled on the fly
 * (subjects.ts has no runtime imports, so it stands alone).
 */
export async function loadWireNames(): Promise<(prefix: string) => WireNames> {
  const built = join(ROOT, "packages/contracts/dist/index.js");
  if (existsSync(built)) return (await import(pathToFileURL(built).href)).wireNames;
  const source = readFileSync(join(ROOT, "packages/contracts/src/subjects.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const dir = mkdtempSync(join(tmpdir(), "mailroom-wire-"));
  try {
    const file = join(dir, "subjects.mjs");
    writeFileSync(file, outputText);
    return (await import(pathToFileURL(file).href)).wireNames;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { domainToASCII, fileURLToPath } from "node:url";
import { z } from "zod";
import { AliasIndex, DomainSet, type Lists, type TypoData } from "../domain/lists.js";

const require = createRequire(import.meta.url);
/** services/verify/data, from src/infra (tests) and dist/infra (built) alike. */
export const BUILT_IN_DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));

const AliasFile = z.object({
  services: z.array(z.object({ name: z.string().min(1), source: z.string().min(1), domains: z.array(z.string().min(1)) })),
});
const TypoFile = z.object({
  providers: z.array(z.string()).default([]),
  misspellings: z.record(z.string(), z.string()).default({}),
  tldMisspellings: z.record(z.string(), z.string()).default({}),
});

const toAscii = (domain: string): string => {
  const trimmed = domain.trim().toLowerCase();
  return domainToASCII(trimmed) || trimmed;
};

/**
 * Loads every list once. Built in: the registry packages `disposable-email-domains` (plus its
 * wildcard list) and `email-providers`, and data/aliases.json and data/typos.json. `listsDir`
 * (VERIFY_LISTS_DIR) may hold disposable.txt, personal.txt, aliases.json and typos.json to extend
 * them; README.md describes the formats.
 */
export function loadLists(listsDir?: string): Lists {
  const extra = (name: string) => (listsDir ? join(listsDir, name) : undefined);

  const disposable: string[] = [
    ...(require("disposable-email-domains/index.json") as string[]),
    ...(require("disposable-email-domains/wildcard.json") as string[]),
  ];
  const personal = require("email-providers/all.json") as string[];

  const aliases = builtIn("aliases.json", AliasFile).services;
  const extraAliases = readJson(extra("aliases.json"), AliasFile);
  if (extraAliases) aliases.push(...extraAliases.services);

  const typos = builtIn("typos.json", TypoFile);
  const extraTypos = readJson(extra("typos.json"), TypoFile);

  return {
    disposable: new DomainSet(applyTextList(disposable, extra("disposable.txt"))),
    personal: new DomainSet(applyTextList(personal, extra("personal.txt"))),
    aliases: new AliasIndex(aliases.map((s) => ({ ...s, domains: s.domains.map(toAscii) }))),
    typos: mergeTypos(typos, extraTypos),
  };
}

function builtIn<T extends z.ZodType>(name: string, schema: T): z.infer<T> {
  const path = join(BUILT_IN_DATA_DIR, name);
  const data = readJson(path, schema);
  if (data === undefined) throw new Error(`built-in list ${path} is missing`);
  return data;
}

function readJson<T extends z.ZodType>(path: string | undefined, schema: T): z.infer<T> | undefined {
  if (path === undefined || !existsSync(path)) return undefined;
  const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** One domain per line, `#` comments; a line `-domain` takes a domain out (a false positive). */
function applyTextList(base: string[], path: string | undefined): Set<string> {
  const result = new Set(base.map((d) => d.toLowerCase()));
  if (path === undefined || !existsSync(path)) return result;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const entry = line.replace(/#.*$/, "").trim();
    if (entry === "") continue;
    if (entry.startsWith("-")) result.delete(toAscii(entry.slice(1)));
    else result.add(toAscii(entry));
  }
  return result;
}

function mergeTypos(base: TypoData, extra: TypoData | undefined): TypoData {
  const merged = {
    providers: [...base.providers, ...(extra?.providers ?? [])].map(toAscii),
    misspellings: { ...base.misspellings, ...extra?.misspellings },
    tldMisspellings: { ...base.tldMisspellings, ...extra?.tldMisspellings },
  };
  return { ...merged, misspellings: Object.fromEntries(Object.entries(merged.misspellings).map(([k, v]) => [toAscii(k), toAscii(v)])) };
}

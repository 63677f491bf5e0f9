import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const dns = new URL("../dist/dns.js", import.meta.url).href;

describe("the shared zones file", () => {
  it("keeps every zone when test workers in several processes add theirs at once", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "zones-")), "zones.json");
    const writer = (tag: string) =>
      run(process.execPath, ["--input-type=module", "-e", `const { addZones } = await import(${JSON.stringify(dns)}); for (let i = 0; i < 100; i++) addZones(${JSON.stringify(file)}, { ["${tag}-" + i + ".test"]: { TXT: ["x"] } });`]);
    await Promise.all(["a", "b", "c", "d"].map(writer));
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toHaveLength(400);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EmailAddress } from "@mailroom/contracts";
import { CopyableCsv, copyableHeader, MAX_COPY_LINE_BYTES, SQL_EMAIL_PATTERN } from "./csv-copy.js";

const bytes = (s: string) => Buffer.from(s, "utf8");

/** Feeds `chunks` to a scanner: its line count, or why it refused the file. */
function scan(...chunks: string[]): number | string {
  const s = new CopyableCsv();
  for (const c of chunks) if (!s.push(bytes(c))) return s.refused!;
  s.end();
  return s.lines;
}

describe("a CSV file's header, for PostgreSQL to parse", () => {
  it("waits for the newline, then gives the fields and the bytes after it, without a BOM", () => {
    expect(copyableHeader(bytes("email,pl"))).toBe("more");
    const head = copyableHeader(bytes("\uFEFFemail,plan\na@x.co,pro"));
    expect(head).toMatchObject({ fields: ["email", "plan"] });
    expect((head as { rest: Buffer }).rest.toString()).toBe("a@x.co,pro");
  });

  it("leaves to csv-parse a header with a quote or a carriage return, an empty one, or one too long", () => {
    expect(copyableHeader(bytes('"email",plan\n'))).toBeNull();
    expect(copyableHeader(bytes("email,plan\r\n"))).toBeNull();
    expect(copyableHeader(bytes("\nemail\n"))).toBeNull();
    expect(copyableHeader(bytes("e".repeat(MAX_COPY_LINE_BYTES + 1)))).toBeNull();
  });
});

describe("a CSV file's lines, for PostgreSQL to parse", () => {
  it("counts the lines, the last one with or without a newline, across chunks", () => {
    expect(scan("a@x.co,1\nb@x.co,2\n")).toBe(2);
    expect(scan("a@x.co,1\nb@x", ".co,2")).toBe(2);
    expect(scan("a@x.co,1\n", "b@x.co,2\n", "")).toBe(2);
    expect(scan("")).toBe(0);
  });

  it("leaves to csv-parse what PostgreSQL would read otherwise", () => {
    expect(scan('a@x.co,"1"\n')).toBe("a quote");
    expect(scan('a@x.co,x"y\n')).toBe("a quote");
    expect(scan("a@x.co,1\r\n")).toBe("a carriage return");
    expect(scan("a@x.co,1\u0000\n")).toBe("a NUL byte");
    expect(scan("a@x.co,1\n\nb@x.co,2\n")).toBe("an empty line");
    expect(scan("a@x.co,1\n", "\nb@x.co,2\n")).toBe("an empty line");
    expect(scan("\na@x.co,1\n")).toBe("an empty line");
    expect(scan("a@x.co,1\n\\.\n")).toBe("a line starting with a backslash");
    expect(scan("a@x.co,1\n", "\\.")).toBe("a line starting with a backslash");
    expect(scan(`a@x.co,${"x".repeat(MAX_COPY_LINE_BYTES)}\n`)).toBe("a long line");
    // a backslash inside a line is only a character
    expect(scan("a@x.co,a\\b\n")).toBe(1);
  });
});

describe("the address pattern PostgreSQL checks", () => {
  it("is zod's email pattern (EmailAddress): when zod changes it, SQL_EMAIL_PATTERN must follow", () => {
    expect(z.regexes.email.source).toBe(String.raw`^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`);
  });

  it("matches exactly the addresses EmailAddress takes unchanged", () => {
    const pattern = new RegExp(SQL_EMAIL_PATTERN);
    const samples = ["a@x.co", "A.B+c_d'e-f@sub-1.x.io", "a@x", "a@x.c", ".a@x.co", "a.@x.co", "a..b@x.co", "a@-x.co", "a@x..co", "é@x.co", " a@x.co", "a@x.co ", "a b@x.co", "a@x.co.", `${"a".repeat(250)}@x.co`];
    for (const s of samples) {
      const parsed = EmailAddress.safeParse(s);
      expect(pattern.test(s) && s.length <= 254, s).toBe(parsed.success && parsed.data === s);
    }
  });
});

#!/usr/bin/env node
// `npm run screenshots`: docs/screenshots/<page>.png of every dashboard page, light theme, 1280×800,
// taken from the running demo. Run, from the repository root:
//
//   npm start                  # in one terminal (PORT=8090 npm start to use another port)
//   npm run screenshots        # in another (PORT=8090 npm run screenshots to match)
//
// It signs in as the demo user `npm start` made (.mailroom/demo-user.json, for the demo project in
// .mailroom/demo.json; MAILROOM_DATA_DIR moves both), in Debian's Chromium headless shell
// (CHROMIUM_PATH for another), after giving the demo project a few contacts, a template and a sent email through the
// API when it has none, so the pages are not blank. MAILROOM_URL overrides http://localhost:PORT.
import { mkdirSync, readFileSync } from "node:fs";
import { DASHBOARD_PAGES, demoData, launchBrowser, pageRendered, signedInContext } from "@mailroom/testkit/browser";

const DATA_DIR = process.env.MAILROOM_DATA_DIR ?? ".mailroom";
const BASE = process.env.MAILROOM_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
const OUT = "docs/screenshots";
/** The demo project's verified domain (scripts/start.mjs). */
const FROM = "hello@example.com";
const VIEW = { viewport: { width: 1280, height: 800 }, colorScheme: "light" };

function readDemo(file) {
  try {
    return JSON.parse(readFileSync(`${DATA_DIR}/${file}`, "utf8"));
  } catch {
    console.error(`${DATA_DIR}/${file} is missing: run \`npm start\` first (it makes the demo project and user).`);
    process.exit(1);
  }
}
const demo = readDemo("demo.json");
const user = { ...readDemo("demo-user.json"), projectId: demo.id };

const up = await fetch(`${BASE}/app/`).catch(() => null);
if (!up?.ok) {
  console.error(`Nothing answers at ${BASE}/app/: is \`npm start\` running (PORT=${process.env.PORT ?? 8080})?`);
  process.exit(1);
}

const data = await demoData(BASE, demo.secretKey, { from: FROM });
mkdirSync(OUT, { recursive: true });
const browser = await launchBrowser();
try {
  const signedOut = await browser.newContext({ ...VIEW, baseURL: BASE });
  const signIn = await signedOut.newPage();
  await signIn.goto("/app/sign-in");
  await signIn.getByRole("button", { name: "Sign in" }).waitFor();
  await signIn.screenshot({ path: `${OUT}/sign-in.png` });
  console.log(`${OUT}/sign-in.png`);
  await signedOut.close();

  const context = await signedInContext(browser, BASE, user, VIEW);
  const page = await context.newPage();
  for (const { name, path } of DASHBOARD_PAGES) {
    await page.goto(path(data));
    await pageRendered(page);
    await page.screenshot({ path: `${OUT}/${name}.png` });
    console.log(`${OUT}/${name}.png`);
  }
  await context.close();
} finally {
  await browser.close();
}

// locks.projectsTracking: the one-round-trip question the segment tracker asks for every change
// handled in a turn (services/contacts/src/usecases/tracker.ts, TrackingProbe).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { newProject } from "@mailroom/testkit/shared";
import { locks } from "../src/db/members-repo.js";
import { contactsDb } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let tracking: Project;
let untracked: Project;
let plain: Project;
const db = contactsDb();
const second = contactsDb();

beforeAll(async () => {
  [tracking, untracked, plain] = await Promise.all([newProject("probe-tracks"), newProject("probe-untracked"), newProject("probe-plain")]);
  const filters = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] };
  expect((await tracking.api.post("/segments", { name: "Tracked", filters, trackMembership: true })).status).toBe(201);
  expect((await untracked.api.post("/segments", { name: "Untracked", filters, trackMembership: false })).status).toBe(201);
});
afterAll(() => Promise.all([db.end(), second.end()]));

describe("locks.projectsTracking", () => {
  it("answers several projects in one query: only those with a tracked segment", async () => {
    const nobody = randomUUID();
    const got = await locks.projectsTracking(db, [plain.id, tracking.id, untracked.id, nobody, tracking.id]);
    expect([...got]).toEqual([tracking.id]);
    expect([...(await locks.projectsTracking(db, [untracked.id]))]).toEqual([]);
    expect(await locks.projectsTracking(db, [])).toEqual(new Set());
  });

  it("refuses anything that is not an id before it reaches SQL", async () => {
    await expect(locks.projectsTracking(db, [tracking.id, "x'); drop table segments; --"])).rejects.toThrow(/not an id/);
    expect([...(await locks.projectsTracking(db, [tracking.id]))]).toEqual([tracking.id]);
  });

  it("waits for a segment write holding the project's lock, then reads what it committed", async () => {
    const reserved = await db.reserve();
    try {
      await reserved`begin`;
      await locks.projectExclusive(reserved, plain.id);
      await reserved`update segments set track_membership = true where project_id = ${untracked.id}`;
      // plain's lock is held: the question for both projects waits for the writer's commit
      const asked = locks.projectsTracking(second, [plain.id, untracked.id]);
      const early = await Promise.race([asked.then(() => "answered"), new Promise((r) => setTimeout(() => r("waiting"), 300))]);
      expect(early).toBe("waiting");
      await reserved`commit`;
      expect([...(await asked)]).toEqual([untracked.id]);
    } finally {
      await reserved`update segments set track_membership = false where project_id = ${untracked.id}`;
      reserved.release();
    }
  });
});

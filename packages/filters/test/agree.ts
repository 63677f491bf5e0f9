import { randomUUID } from "node:crypto";
import type { FilterExpression } from "@mailroom/contracts";
import { expect } from "vitest";
import { compileFilter, evaluateFilter, type SegmentMap, type TopicDefaults } from "../src/index.js";
import { TOPICS } from "./arbitraries.js";
import { NOW } from "./helpers.js";
import type { ScratchDb, SeedContact } from "./scratch-db.js";

/** One query answering every expression for every contact of the project, each compiled at its own offset. */
async function answersInSql(db: ScratchDb, projectId: string, exprs: FilterExpression[], segments: SegmentMap, topics: TopicDefaults) {
  const values: string[] = [projectId];
  const columns = exprs.map((expr) => {
    const compiled = compileFilter(expr, { now: NOW, segments, topics, paramOffset: values.length });
    values.push(...compiled.values);
    return compiled.text;
  });
  const rows = await db.sql.unsafe<Array<{ id: string; answers: boolean[] }>>(
    `SELECT c.id, ARRAY[${columns.join(", ")}]::boolean[] AS answers FROM contacts c WHERE c.project_id = $1::uuid`,
    values,
  );
  return { columns, answers: new Map(rows.map((r) => [r.id, r.answers])) };
}

/**
 * Stores the contacts as a fresh project, reads their facts back through the driver (as the services
 * will load them), and fails on the first (contact, expression) whose SQL and in-memory answers differ.
 */
export async function expectAgreement(
  db: ScratchDb,
  people: Array<Omit<SeedContact, "id">>,
  exprs: FilterExpression[],
  segments: SegmentMap = new Map(),
  { allStored = true, topics = TOPICS }: { allStored?: boolean; topics?: TopicDefaults } = {},
): Promise<void> {
  const projectId = randomUUID();
  const facts = await db.seed(projectId, people.map((p) => ({ ...p, id: randomUUID() })));
  // random emails can collide under lower(); a test that builds its contacts must not lose any
  if (allStored) expect(facts.size).toBe(people.length);
  expect(facts.size).toBeGreaterThan(0);
  const { columns, answers } = await answersInSql(db, projectId, exprs, segments, topics);
  for (const [id, contact] of facts) {
    const inSql = answers.get(id)!;
    exprs.forEach((expr, i) => {
      const inMemory = evaluateFilter(expr, contact, { now: NOW, segments, topics });
      if (inMemory !== inSql[i]) {
        expect.fail(`contact ${JSON.stringify(contact)}\nfilter ${JSON.stringify(expr)}\nsql ${columns[i]}\nmemory ${inMemory}, sql ${inSql[i]}`);
      }
    });
  }
}

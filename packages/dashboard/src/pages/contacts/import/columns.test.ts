import { describe, expect, it } from "vitest";
import { fileProblem, planColumns } from "./columns";

describe("planColumns", () => {
  it("finds email and subscribed in any case, and sends every other column to data as written", () => {
    const plan = planColumns(["\uFEFFEmail ", "Subscribed", " First Name", "plan"]);
    expect(plan.problem).toBeNull();
    expect(plan.columns).toEqual([
      { name: "Email", role: { kind: "email" } },
      { name: "Subscribed", role: { kind: "subscribed" } },
      { name: "First Name", role: { kind: "data", key: "First Name" } },
      { name: "plan", role: { kind: "data", key: "plan" } },
    ]);
  });

  it("refuses a header without an email column", () => {
    expect(planColumns(["mail", "name"]).problem).toMatch(/no email column/);
  });

  it("refuses a header with an unnamed or repeated column, as the service would at row 1", () => {
    expect(planColumns(["email", ""]).problem).toBe("Column 2 of the header has no name.");
    expect(planColumns(["email", "EMAIL"]).problem).toBe("The header names the column “EMAIL” twice.");
    expect(planColumns(["email", "plan", "plan"]).problem).toBe("The header names the column “plan” twice.");
  });
});

describe("fileProblem", () => {
  it("refuses an empty file and one past the upload limit", () => {
    expect(fileProblem({ name: "a.csv", size: 0 })).toBe("a.csv is empty.");
    expect(fileProblem({ name: "a.csv", size: 2 * 1024 ** 3 })).toMatch(/larger than the 1 GB/);
    expect(fileProblem({ name: "a.csv", size: 10 })).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { connectionProblem, edgeFields, executionPath, type Graph, type GraphEdge, type GraphStep, graphProblems, newStepPosition, outputOf, outputsOf } from "./graph";

const step = (id: string, type: GraphStep["type"], config: Record<string, unknown> = {}): GraphStep => ({ id, type, name: id, config } as GraphStep);
const edge = (fromStepId: string, toStepId: string, fields: Partial<GraphEdge> = {}): GraphEdge => ({ fromStepId, toStepId, branch: null, waitOutcome: null, ...fields });

const steps = [
  step("start", "TRIGGER", { eventName: "signup" }),
  step("check", "CONDITION", { field: "event.plan", operator: "equals", value: "pro" }),
  step("wait", "WAIT_FOR_EVENT", { eventName: "reply", timeout: 60 }),
  step("forever", "WAIT_FOR_EVENT", { eventName: "reply", timeout: 0 }),
  step("hook", "WEBHOOK", { url: "https://example.com" }),
  step("mail", "SEND_EMAIL", { templateId: "t1" }),
  step("bye", "EXIT"),
];
const graph = (...transitions: GraphEdge[]): Graph => ({ steps, transitions });

describe("connectionProblem", () => {
  it("accepts the edges of a well-formed graph", () => {
    expect(connectionProblem(graph(), edge("start", "check"))).toBeNull();
    expect(connectionProblem(graph(), edge("check", "wait", { branch: "yes" }))).toBeNull();
    expect(connectionProblem(graph(), edge("wait", "hook", { waitOutcome: "EVENT" }))).toBeNull();
    expect(connectionProblem(graph(), edge("wait", "bye", { waitOutcome: "TIMEOUT" }))).toBeNull();
    expect(connectionProblem(graph(), edge("hook", "bye"))).toBeNull();
  });

  it("refuses any edge into the trigger, and a step leading to itself", () => {
    expect(connectionProblem(graph(), edge("hook", "start"))).toBe("Nothing can lead into the trigger: every execution starts there.");
    expect(connectionProblem(graph(), edge("hook", "hook"))).toBe("A step cannot lead to itself.");
  });

  it("gives a condition one yes and one no, and only branches", () => {
    const g = graph(edge("check", "wait", { branch: "yes" }));
    expect(connectionProblem(g, edge("check", "hook", { branch: "yes" }))).toBe("The condition “check” already has a “yes” branch: delete it first.");
    expect(connectionProblem(g, edge("check", "hook", { branch: "no" }))).toBeNull();
    expect(connectionProblem(g, edge("check", "hook"))).toBe("A connection from the condition “check” must be its “yes” or its “no” branch.");
  });

  it("makes a wait's edges carry an outcome, TIMEOUT only with a timeout", () => {
    expect(connectionProblem(graph(), edge("wait", "hook"))).toBe("A connection from the wait “wait” must be its EVENT or its TIMEOUT outcome.");
    expect(connectionProblem(graph(), edge("forever", "hook", { waitOutcome: "TIMEOUT" }))).toBe(
      "The wait “forever” has no timeout: give it a timeout (in seconds) before connecting its TIMEOUT outcome.",
    );
    expect(connectionProblem(graph(edge("wait", "hook", { waitOutcome: "EVENT" })), edge("wait", "bye", { waitOutcome: "EVENT" }))).toBe(
      "The wait “wait” already has an EVENT connection: delete it first.",
    );
  });

  it("gives every other step one next step and no branches", () => {
    expect(connectionProblem(graph(edge("hook", "mail")), edge("hook", "bye"))).toBe("“hook” already leads to “mail”: only a condition or a wait has more than one next step.");
    expect(connectionProblem(graph(edge("start", "hook")), edge("start", "mail"))).toBe("“start” already leads to “hook”: only a condition or a wait has more than one next step.");
    expect(connectionProblem(graph(), edge("hook", "mail", { branch: "yes" }))).toBe("Only conditions have yes/no branches and only waits have EVENT/TIMEOUT outcomes.");
    expect(connectionProblem(graph(), edge("bye", "mail"))).toBe("“bye” is an exit: an execution ends there, so it leads nowhere.");
  });

  it("refuses a loop, however long", () => {
    const g = graph(edge("check", "hook", { branch: "yes" }), edge("hook", "mail"));
    expect(connectionProblem(g, edge("mail", "check"))).toBe("That connection would make a loop: “check” already leads back to “mail”.");
  });
});

describe("graphProblems", () => {
  it("finds nothing wrong with a good graph", () => {
    expect(graphProblems(graph(edge("start", "check"), edge("check", "wait", { branch: "yes" }), edge("check", "bye", { branch: "no" }), edge("wait", "hook", { waitOutcome: "EVENT" })))).toEqual([]);
  });

  it("counts the triggers and reports each bad edge once", () => {
    const two: Graph = { steps: [...steps, step("again", "TRIGGER")], transitions: [edge("hook", "mail"), edge("mail", "hook")] };
    expect(graphProblems(two)).toEqual(["A workflow has exactly one trigger; this one has 2.", "That connection would make a loop: “hook” already leads back to “mail”."]);
    expect(graphProblems({ steps: [step("x", "EXIT")], transitions: [] })).toEqual(["A workflow has exactly one trigger; this one has 0."]);
  });
});

describe("outputs and edges", () => {
  it("draws yes/no on conditions, EVENT/TIMEOUT on waits, nothing on exits", () => {
    expect(outputsOf("CONDITION")).toEqual(["yes", "no"]);
    expect(outputsOf("WAIT_FOR_EVENT")).toEqual(["EVENT", "TIMEOUT"]);
    expect(outputsOf("EXIT")).toEqual([]);
    expect(outputsOf("DELAY")).toEqual(["next"]);
    for (const o of ["next", "yes", "no", "EVENT", "TIMEOUT"] as const) expect(outputOf(edgeFields(o))).toBe(o);
  });

  it("places a new step under the selected one, beside its other children", () => {
    const placed = [{ id: "a", position: { x: 0, y: 0 } }, { id: "b", position: { x: 0, y: 140 } }];
    expect(newStepPosition(placed, [], null)).toEqual({ x: 0, y: 280 });
    expect(newStepPosition(placed, [edge("a", "b")], "a")).toEqual({ x: 260, y: 140 });
    expect(newStepPosition([], [], null)).toEqual({ x: 0, y: 0 });
  });

  it("draws an execution's path from its step runs in order", () => {
    const transitions = [{ id: "t1", ...edge("start", "check") }, { id: "t2", ...edge("check", "bye", { branch: "no" }) }, { id: "t3", ...edge("check", "wait", { branch: "yes" }) }];
    const path = executionPath([{ stepId: "start", status: "COMPLETED" }, { stepId: "check", status: "COMPLETED" }, { stepId: "bye", status: "COMPLETED" }], transitions);
    expect([...path.edges]).toEqual(["t1", "t2"]);
    expect(path.steps.get("bye")).toBe("COMPLETED");
    expect(path.steps.has("wait")).toBe(false);
  });
});

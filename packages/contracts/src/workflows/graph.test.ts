import { describe, expect, it } from "vitest";
import {
  connectionProblem,
  edgeFields,
  type Graph,
  type GraphEdge,
  type GraphStep,
  graphProblems,
  labelForNewEdge,
  outputOf,
  outputsOf,
  spliceEdges,
} from "./graph.js";

const step = (id: string, type: GraphStep["type"], config: Record<string, unknown> = {}): GraphStep => ({ id, type, name: id, config });
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

  it("refuses any edge into the trigger, a step leading to itself, and an end outside the workflow", () => {
    expect(connectionProblem(graph(), edge("hook", "start"))).toBe("Nothing can lead into the trigger: every execution starts there.");
    expect(connectionProblem(graph(), edge("hook", "hook"))).toBe("A step cannot lead to itself.");
    expect(connectionProblem(graph(), edge("hook", "elsewhere"))).toBe("Both ends of a connection must be steps of this workflow.");
  });

  it("gives a condition one yes and one no, and only branches", () => {
    const g = graph(edge("check", "wait", { branch: "yes" }));
    expect(connectionProblem(g, edge("check", "hook", { branch: "yes" }))).toBe("The condition “check” already has a “yes” branch: delete it first.");
    expect(connectionProblem(g, edge("check", "hook", { branch: "no" }))).toBeNull();
    expect(connectionProblem(g, edge("check", "hook"))).toBe("A connection from the condition “check” must be its “yes” or its “no” branch.");
    expect(connectionProblem(g, edge("check", "hook", { waitOutcome: "EVENT" }))).toBe("A connection from the condition “check” must be its “yes” or its “no” branch.");
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
    const good = graph(edge("start", "check"), edge("check", "wait", { branch: "yes" }), edge("check", "bye", { branch: "no" }), edge("wait", "hook", { waitOutcome: "EVENT" }), edge("wait", "mail", { waitOutcome: "TIMEOUT" }));
    expect(graphProblems(good)).toEqual([]);
  });

  it.each([
    ["an edge into the trigger", [edge("hook", "start")], "toStepId"],
    ["two edges from a plain step", [edge("hook", "mail"), edge("hook", "bye")], "transitions"],
    ["a condition's edge without a branch", [edge("check", "bye")], "transitions"],
    ["two yes edges", [edge("check", "bye", { branch: "yes" }), edge("check", "mail", { branch: "yes" })], "transitions"],
    ["a wait's edge without an outcome", [edge("wait", "bye")], "transitions"],
    ["a branch on a plain step", [edge("hook", "bye", { branch: "yes" })], "transitions"],
    ["an edge out of an exit", [edge("bye", "hook")], "transitions"],
    ["an edge to a step of another workflow", [edge("hook", "elsewhere")], "transitions"],
    ["a loop", [edge("hook", "check"), edge("check", "hook", { branch: "yes" })], "transitions"],
    ["a TIMEOUT edge from a wait without a timeout", [edge("forever", "bye", { waitOutcome: "TIMEOUT" })], "transitions"],
  ])("reports %s once", (_, transitions, path) => {
    const problems = graphProblems(graph(...transitions));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(path);
  });

  it("counts the triggers and names a loop at the edge that closes it", () => {
    const two: Graph = { steps: [...steps, step("again", "TRIGGER")], transitions: [edge("hook", "mail"), edge("mail", "hook")] };
    expect(graphProblems(two).map((p) => p.message)).toEqual(["A workflow has exactly one trigger; this one has 2.", "That connection would make a loop: “hook” already leads back to “mail”."]);
    expect(graphProblems({ steps: [step("x", "EXIT")], transitions: [] })).toEqual([{ path: "steps", message: "A workflow has exactly one trigger; this one has 0." }]);
  });

  it("reads a long workflow a few times over, not once per edge, and follows a 20,000-step chain without overflowing the stack", () => {
    const n = 20_000;
    const chain = [step("s0", "TRIGGER"), ...Array.from({ length: n - 1 }, (_, i) => step(`s${i + 1}`, "DELAY"))];
    const transitions = chain.slice(1).map((s, i) => edge(`s${i}`, s.id));
    const closing = edge(`s${n - 1}`, "s1");
    // every element read of the graph's two lists: linear work reads each a few times, work per edge
    // over the whole graph (a search per edge, a filter per step) reads it thousands of times
    const reads = { n: 0 };
    const counted = <T extends object>(items: T[]) =>
      new Proxy(items, {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) reads.n++;
          return Reflect.get(target, key, receiver);
        },
      });
    expect(graphProblems({ steps: counted(chain), transitions: counted(transitions) })).toEqual([]);
    expect(graphProblems({ steps: counted(chain), transitions: counted([...transitions, closing]) })).toHaveLength(1);
    expect(connectionProblem({ steps: counted(chain), transitions: counted(transitions) }, closing)).toBe("That connection would make a loop: “s1” already leads back to “s19999”.");
    expect(reads.n).toBeLessThan(20 * 2 * n);
  });
});

describe("outputs, new edges and splicing", () => {
  it("draws yes/no on conditions, EVENT/TIMEOUT on waits, nothing on exits", () => {
    expect(outputsOf("CONDITION")).toEqual(["yes", "no"]);
    expect(outputsOf("WAIT_FOR_EVENT")).toEqual(["EVENT", "TIMEOUT"]);
    expect(outputsOf("EXIT")).toEqual([]);
    expect(outputsOf("DELAY")).toEqual(["next"]);
    for (const o of ["next", "yes", "no", "EVENT", "TIMEOUT"] as const) expect(outputOf(edgeFields(o))).toBe(o);
  });

  it("gives a new step's edge the first free output of the step before it", () => {
    expect(labelForNewEdge(step("check", "CONDITION"), [edge("check", "bye", { branch: "yes" })])).toEqual({ branch: "no", waitOutcome: null });
    expect(labelForNewEdge(step("check", "CONDITION"), [])).toEqual({ branch: "yes", waitOutcome: null });
    expect(labelForNewEdge(step("wait", "WAIT_FOR_EVENT"), [])).toEqual({ branch: null, waitOutcome: "EVENT" });
    expect(labelForNewEdge(step("wait", "WAIT_FOR_EVENT"), [edge("wait", "bye", { waitOutcome: "EVENT" })])).toEqual({ branch: null, waitOutcome: "TIMEOUT" });
    expect(labelForNewEdge(step("hook", "WEBHOOK"), [])).toEqual({ branch: null, waitOutcome: null });
  });

  it("splices a step with one successor out, keeping its callers' labels, and refuses one with two", () => {
    expect(spliceEdges("hook", [edge("check", "hook", { branch: "yes" }), edge("hook", "bye")])).toEqual([edge("check", "bye", { branch: "yes" })]);
    expect(spliceEdges("hook", [edge("check", "hook", { branch: "yes" })])).toEqual([]);
    expect(spliceEdges("check", [edge("check", "hook", { branch: "yes" }), edge("check", "bye", { branch: "no" })])).toHaveProperty("path", "splice");
  });
});

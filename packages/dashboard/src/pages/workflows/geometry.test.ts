import { describe, expect, it } from "vitest";
import { nodeGeometry, NODE_WIDTH } from "./geometry";

describe("a step node's geometry", () => {
  it("has one target on top (none on the trigger) and a source per output, spread along the bottom", () => {
    const condition = nodeGeometry("CONDITION", false);
    expect(condition.handles.map((h) => [h.type, h.id])).toEqual([["source", "yes"], ["source", "no"], ["target", null]]);
    // handle boxes are 14 px, centred on the edge: a quarter and three quarters across
    expect(condition.handles.map((h) => h.x + 7)).toEqual([NODE_WIDTH / 4, (NODE_WIDTH * 3) / 4, NODE_WIDTH / 2]);
    expect(condition.handles[0]!.y + 7).toBe(condition.height);
    expect(nodeGeometry("TRIGGER", false).handles.map((h) => h.type)).toEqual(["source"]);
    expect(nodeGeometry("EXIT", false).handles.map((h) => h.type)).toEqual(["target"]);
  });

  it("is taller with an outputs row and with a step run, and says it is measured", () => {
    const delay = nodeGeometry("DELAY", false);
    expect(nodeGeometry("WAIT_FOR_EVENT", false).height).toBeGreaterThan(delay.height);
    expect(nodeGeometry("DELAY", true).height).toBeGreaterThan(delay.height);
    expect(delay.measured).toEqual({ width: delay.width, height: delay.height });
  });
});

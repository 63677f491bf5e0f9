import { z } from "zod";
import { Id } from "../common.js";
import { defineRpc } from "../route.js";

/**
 * A project's name, asked of the gateway (it owns projects) by the sending service for the fixed
 * text of a confirmation email sent from SYSTEM_FROM (decisions.md §15). Null: no such project.
 */
export const ProjectNameRpcRequest = z.object({ projectId: Id });
export type ProjectNameRpcRequest = z.infer<typeof ProjectNameRpcRequest>;
export const ProjectNameRpcReply = z.object({ name: z.string().nullable() });
export type ProjectNameRpcReply = z.infer<typeof ProjectNameRpcReply>;

export const accountsRpc = {
  projectName: defineRpc({ service: "gateway", operation: "gateway.projects.name", request: ProjectNameRpcRequest, reply: ProjectNameRpcReply }),
};

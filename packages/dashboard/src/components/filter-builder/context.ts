import type { FilterDialect } from "@mailroom/contracts";
import { createContext, useContext } from "react";

/** What every level of the builder needs, handed down once instead of through each component's props. */
export interface BuilderContext {
  dialect: FilterDialect;
  readOnly: boolean;
  /** The message to show at an input of a filter (by expression path), once it has been edited or a save was tried. */
  message: (path: string, rowId: string) => string | undefined;
  /** The messages to show at a group or at the top (a size or depth limit). */
  groupMessage: (path: string) => string | undefined;
  /** A filter was edited: its messages show from now on. */
  touch: (rowId: string) => void;
  dataKeys: string[];
  eventNames: string[];
  segments: { value: string; label: string }[];
  topics: { value: string; label: string }[];
}

export const Builder = createContext<BuilderContext | null>(null);

export function useBuilder(): BuilderContext {
  const ctx = useContext(Builder);
  if (!ctx) throw new Error("filter builder parts must be inside <FilterBuilder>");
  return ctx;
}

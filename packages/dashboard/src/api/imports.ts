import { contactRoutes, type ImportAccepted, importRoutes, routeOf, segmentRoutes } from "@mailroom/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { upload } from "./client";
import type { ApiError } from "./errors";
import { useRouteQuery } from "./query";

const create = routeOf(importRoutes, "contacts.imports.create");
const read = routeOf(importRoutes, "contacts.imports.read");
/** What an import changes on screen: the contact list and the segments' members and counts. */
const changed = [routeOf(contactRoutes, "contacts.list"), ...segmentRoutes.filter((r) => r.method === "GET")];

/** The poll of a running import's progress (the task asks for a second; the read is one indexed row). */
const POLL_MS = 1_000;

/** A file to import, and the topics every row is opted into. */
export interface ImportUpload {
  file: File;
  topics: string[];
}

/** Uploads a CSV file as an import; the 202's `{id, status}`. */
export function useStartImportMutation() {
  return useMutation<ImportAccepted, ApiError, ImportUpload>({
    mutationFn: ({ file, topics }) => upload(create, { query: { topics: topics.length > 0 ? topics.join(",") : undefined } }, file),
  });
}

/** An import's progress, polled while it runs; the contact lists refetch once it has ended. */
export function useImport(id: string) {
  const client = useQueryClient();
  const query = useRouteQuery(read, { params: { id } }, { refetchInterval: (q) => (q.state.data?.status === "RUNNING" ? POLL_MS : false) });
  const ended = query.data !== undefined && query.data.status !== "RUNNING";
  useEffect(() => {
    if (ended) for (const r of changed) void client.invalidateQueries({ queryKey: [r.operation] });
  }, [ended, client]);
  return query;
}

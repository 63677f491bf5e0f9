import { importRoutes, routeOf } from "@mailroom/contracts";
import { useMutation } from "@tanstack/react-query";
import { chooseSaveTarget } from "../lib/save-file";
import { download } from "./client";
import type { ApiError } from "./errors";

// Apart from the import hooks: the contact list's Export button loads this with the list (its size
// budget), and those bring the segment routes along.
const exportCsv = routeOf(importRoutes, "contacts.export");

/**
 * Downloads the contacts (or a segment's members) as CSV. The mutation ends once the file is
 * written; `false` when the person closed the save picker.
 */
export function useExportContactsMutation() {
  return useMutation<boolean, ApiError | Error, { segmentId?: string; fileName: string }>({
    mutationFn: async ({ segmentId, fileName }) => {
      const save = await chooseSaveTarget(fileName, { description: "CSV file", mime: "text/csv", extension: ".csv" });
      if (!save) return false;
      await save(await download(exportCsv, { query: { segmentId } }));
      return true;
    },
  });
}

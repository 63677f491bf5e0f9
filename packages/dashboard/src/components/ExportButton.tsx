import { Button } from "@mantine/core";
import { useExportContactsMutation } from "../api/export";
import { notifyError } from "./errors";

/**
 * Downloads the project's contacts, or one segment's members, as CSV (decisions.md §14). A viewer
 * may export: it is a read.
 */
export function ExportButton({ segmentId, fileName }: { segmentId?: string; fileName: string }) {
  const exporting = useExportContactsMutation();
  return (
    <Button variant="default" loading={exporting.isPending} onClick={() => exporting.mutate({ segmentId, fileName: datedName(fileName) }, { onError: notifyError })}>
      Export CSV
    </Button>
  );
}

/** `contacts` → `contacts-2026-11-26.csv`: a second export that day does not look like the first. */
function datedName(base: string): string {
  return `${base}-${new Date().toISOString().slice(0, 10)}.csv`;
}

import Papa from "papaparse";
import { type ColumnPlan, planColumns } from "./columns";

/** Data rows the preview shows under the header. */
export const PREVIEW_ROWS = 5;

export interface FilePreview {
  plan: ColumnPlan;
  rows: string[][];
}

/**
 * The header and first rows of a picked file, parsed in the browser by papaparse (quotes, commas
 * and line breaks inside fields, as csv-parse reads them on the server). It reads the file a chunk
 * at a time and stops after the rows it needs, so a 1 GB file previews as fast as a small one.
 */
export function readPreview(file: File): Promise<FilePreview> {
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(file, {
      preview: PREVIEW_ROWS + 1,
      skipEmptyLines: true,
      complete: ({ data }) => {
        const [header = [], ...rows] = data;
        resolve({ plan: planColumns(header), rows });
      },
      error: (err) => reject(err),
    });
  });
}

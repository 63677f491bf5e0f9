/** The File System Access API's save picker (Chromium); not in TypeScript's DOM library yet. */
interface SavePicker {
  (options: { suggestedName: string; types?: Array<{ description: string; accept: Record<string, string[]> }> }): Promise<{
    createWritable(): Promise<WritableStream<Uint8Array>>;
  }>;
}

/** Writes a download's answer to where the person chose. */
export type SaveTarget = (res: Response) => Promise<void>;

/**
 * Where a download (an export of a million contacts, say) will go, chosen before it is fetched: the
 * save picker needs the click's user activation, which an await on the network would spend. With
 * the picker (Chromium) the answer streams to disk as it arrives; elsewhere it is gathered into a
 * Blob and saved through a download link, since a plain link to the API cannot carry the project
 * header every signed-in GET needs. Null: the person closed the picker.
 */
export async function chooseSaveTarget(name: string, type: { description: string; mime: string; extension: string }): Promise<SaveTarget | null> {
  const picker = (window as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
  if (!picker) return (res) => saveBlob(res, name);
  let handle: Awaited<ReturnType<SavePicker>>;
  try {
    handle = await picker({ suggestedName: name, types: [{ description: type.description, accept: { [type.mime]: [type.extension] } }] });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") return null;
    // Refused (a policy, an insecure origin): save the usual way.
    return (res) => saveBlob(res, name);
  }
  return async (res) => {
    const out = await handle.createWritable();
    if (!res.body) return out.close();
    await res.body.pipeTo(out); // closes the file at the end, aborts it (discarding the partial write) on an error
  };
}

async function saveBlob(res: Response, name: string): Promise<void> {
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  // The browser has taken the file once the click's task is over.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

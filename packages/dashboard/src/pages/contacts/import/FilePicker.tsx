import { Input, Paper, Stack, Text } from "@mantine/core";
import { type DragEvent, useId, useState } from "react";

/**
 * A CSV file chosen with the browser's own file input (keyboard and screen readers know it) or
 * dropped anywhere on the area around it. @mantine/dropzone would do the dropping, but its releases
 * pin an older @mantine/core than the app's.
 */
export function FilePicker({ onPick }: { onPick: (file: File) => void }) {
  const id = useId();
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) onPick(file);
  };
  return (
    <Paper
      withBorder
      p="xl"
      style={{ borderStyle: "dashed", borderWidth: 2, borderColor: over ? "var(--mantine-color-blue-6)" : undefined }}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <Stack align="center" gap="xs">
        <Text>Drop a CSV file here, or choose one.</Text>
        <Input.Wrapper label="CSV file" description="A header row first; UTF-8, comma-separated" id={id}>
          <input
            id={id}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (file) onPick(file);
              e.currentTarget.value = ""; // picking the same file again after a fix still reads it
            }}
          />
        </Input.Wrapper>
      </Stack>
    </Paper>
  );
}

import { liquid } from "@codemirror/lang-liquid";
import { EditorView } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useComputedColorScheme } from "@mantine/core";
import { useMemo } from "react";
import { cspNonce } from "../../lib/csp";

/**
 * The template body in CodeMirror 6: Liquid highlighting over HTML (lang-liquid wraps the HTML
 * language). Its own chunk, loaded by the editor page only. The content element carries the label,
 * as CodeMirror's editable element is not an <input> a <label> could name.
 */
export default function CodeEditor(props: { label: string; value: string; onChange: (v: string) => void; readOnly?: boolean }) {
  const scheme = useComputedColorScheme("light");
  const extensions = useMemo(
    () => [liquid(), EditorView.cspNonce.of(cspNonce()), EditorView.lineWrapping, EditorView.contentAttributes.of({ "aria-label": props.label, "aria-multiline": "true" })],
    [props.label],
  );
  return (
    <CodeMirror
      value={props.value}
      onChange={props.onChange}
      readOnly={props.readOnly}
      extensions={extensions}
      theme={scheme}
      minHeight="240px"
      basicSetup={{ foldGutter: false, highlightActiveLine: false, closeBrackets: false, autocompletion: false }}
    />
  );
}

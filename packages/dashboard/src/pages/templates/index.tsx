import { Route, Routes } from "react-router";
import { TemplateEditor } from "./TemplateEditor";
import { TemplateList } from "./TemplateList";

/** `/templates` lists them; `/templates/new` and `/templates/<id>` open the editor. */
export default function TemplatesPage() {
  return (
    <Routes>
      <Route index element={<TemplateList />} />
      <Route path="new" element={<TemplateEditor id={null} />} />
      <Route path=":id" element={<TemplateEditor />} />
    </Routes>
  );
}

import { lazy } from "react";
import { Route, Routes } from "react-router";
import { ContactList } from "./ContactList";

// The list is the page that must load fast (the size budget); one contact's page comes when opened.
const ContactPage = lazy(() => import("./ContactPage"));
// The wizard brings the CSV parser; neither is needed by the list.
const ImportWizard = lazy(() => import("./import/ImportWizard"));
const ImportProgress = lazy(() => import("./import/ImportProgress"));

/** `/contacts` is the list, `/contacts/:id` one contact, `/contacts/import` the import wizard and `/contacts/imports/:id` an import's progress. */
export default function ContactsArea() {
  return (
    <Routes>
      <Route index element={<ContactList />} />
      <Route path="import" element={<ImportWizard />} />
      <Route path="imports/:id" element={<ImportProgress />} />
      <Route path=":id" element={<ContactPage />} />
    </Routes>
  );
}

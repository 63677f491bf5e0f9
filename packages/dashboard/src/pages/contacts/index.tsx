import { lazy } from "react";
import { Route, Routes } from "react-router";
import { ContactList } from "./ContactList";

// The list is the page that must load fast (the size budget); one contact's page comes when opened.
const ContactPage = lazy(() => import("./ContactPage"));

/** `/contacts` is the list, `/contacts/:id` one contact. */
export default function ContactsArea() {
  return (
    <Routes>
      <Route index element={<ContactList />} />
      <Route path=":id" element={<ContactPage />} />
    </Routes>
  );
}

import { Route, Routes } from "react-router";
import { ContactList } from "./ContactList";
import { ContactPage } from "./ContactPage";

/** `/contacts` is the list, `/contacts/:id` one contact. */
export default function ContactsArea() {
  return (
    <Routes>
      <Route index element={<ContactList />} />
      <Route path=":id" element={<ContactPage />} />
    </Routes>
  );
}

import { Route, Routes } from "react-router";
import { EmailList } from "./EmailList";
import { EmailPage } from "./EmailPage";

/** `/emails` is the log, `/emails/:id` one email and its timeline. */
export default function EmailsArea() {
  return (
    <Routes>
      <Route index element={<EmailList />} />
      <Route path=":id" element={<EmailPage />} />
    </Routes>
  );
}

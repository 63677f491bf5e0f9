import { ComingSoon } from "../../components/ComingSoon";

export default function ContactsPage() {
  return <ComingSoon title="Contacts" />;
}

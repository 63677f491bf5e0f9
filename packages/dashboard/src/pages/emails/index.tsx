import { ComingSoon } from "../../components/ComingSoon";

export default function EmailsPage() {
  return <ComingSoon title="Emails" />;
}

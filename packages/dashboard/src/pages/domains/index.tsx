import { ComingSoon } from "../../components/ComingSoon";

export default function DomainsPage() {
  return <ComingSoon title="Domains" />;
}

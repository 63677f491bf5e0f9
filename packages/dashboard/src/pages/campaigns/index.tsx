import { Route, Routes } from "react-router";
import { CampaignList } from "./CampaignList";
import { CampaignPage } from "./CampaignPage";
import { Composer } from "./Composer";

/** `/campaigns` lists them, `/campaigns/new` composes one, `/campaigns/<id>` shows it as its status allows. */
export default function CampaignsPage() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route path="new" element={<Composer campaign={null} />} />
      <Route path=":id" element={<CampaignPage />} />
    </Routes>
  );
}

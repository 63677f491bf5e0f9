import { contactRoutes } from "./http.js";
import { importRoutes } from "./imports.js";
import { segmentRoutes } from "./segments.js";
import { topicRoutes } from "./topics.js";
import { formPublicRoutes, formRoutes } from "./forms.js";

export * from "./records.js";
export * from "./http.js";
export * from "./segments.js";
export * from "./rpc.js";
export * from "./changes.js";
export * from "./topics.js";
export * from "./imports.js";
export * from "./forms.js";

export const contactsRoutes = [...contactRoutes, ...importRoutes, ...segmentRoutes, ...topicRoutes, ...formRoutes, ...formPublicRoutes];

import { z } from "zod";
import { defineRoute } from "../route.js";
import { Id, IdParams, Timestamp } from "../common.js";

/**
 * Topics (decisions.md §14): what a contact may opt into or out of one by one (product news yes,
 * weekly digest no). A contact without a choice of its own for a topic has the topic's default.
 */
export const Topic = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  defaultSubscribed: z.boolean(),
  createdAt: Timestamp,
});
export type Topic = z.infer<typeof Topic>;

/**
 * A contact's own choices, `{<topicId>: boolean}`. Only explicit choices are kept and shown: a topic
 * missing from the map follows its `defaultSubscribed`, so changing a default reaches every contact
 * that never chose. At most 100 keys per write (a project has few topics).
 */
export const ContactTopics = z.record(Id, z.boolean()).refine((m) => Object.keys(m).length <= 100, { message: "at most 100 topics at once" });
export type ContactTopics = z.infer<typeof ContactTopics>;

const TopicName = z.string().trim().min(1).max(200);
const TopicDescription = z.string().max(1000).nullable();

export const CreateTopicRequest = z.object({
  name: TopicName,
  description: TopicDescription.optional(),
  defaultSubscribed: z.boolean().default(false),
});
export type CreateTopicRequest = z.infer<typeof CreateTopicRequest>;

export const UpdateTopicRequest = z.object({
  name: TopicName.optional(),
  description: TopicDescription.optional(),
  defaultSubscribed: z.boolean().optional(),
});
export type UpdateTopicRequest = z.infer<typeof UpdateTopicRequest>;

/** Every topic of the project, oldest first (not paged: a project has few). */
export const TopicList = z.array(Topic);
export type TopicList = z.infer<typeof TopicList>;

/** At most this many topics per project: each is a checkbox on the manage page. */
export const MAX_TOPICS = 100;

const base = { service: "contacts", auth: "secret", tag: "Topics" } as const;

export const topicRoutes = [
  defineRoute({ ...base, method: "GET", path: "/topics", operation: "contacts.topics.list", summary: "List topics", response: TopicList, status: 200 }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/topics",
    operation: "contacts.topics.create",
    summary: "Create a topic",
    body: CreateTopicRequest,
    response: Topic,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/topics/:id",
    operation: "contacts.topics.read",
    summary: "Get a topic",
    params: IdParams,
    response: Topic,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/topics/:id",
    operation: "contacts.topics.update",
    summary: "Update a topic",
    params: IdParams,
    body: UpdateTopicRequest,
    response: Topic,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/topics/:id",
    operation: "contacts.topics.delete",
    summary: "Delete a topic (contacts' choices for it go with it; campaigns naming it keep their id)",
    params: IdParams,
    status: 204,
  }),
];

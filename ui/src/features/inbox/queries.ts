import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { inboxApi, type ApiError, type BusMessage, type Change } from "../../api";

export const inboxKeys = {
  authors: ["authors"] as const,
  messages: ["bus-messages"] as const,
  list: (kind: "inbox" | "sent", author: string) => ["bus-messages", kind, author] as const,
  thread: (author: string, message: string) => ["bus-messages", "thread", author, message] as const,
  search: (author: string, query: string) => ["bus-messages", "search", author, query] as const,
  server: ["local-server"] as const,
};

export const authorsQuery = queryOptions({ queryKey: inboxKeys.authors, queryFn: inboxApi.listAuthors });

/** An inbox (or sent mail) as the desktop shows it: read and unread, the
 * latest 500, never marking anything read by looking (a role's mail stays
 * the role's until it reads it). */
export const messagesQuery = (kind: "inbox" | "sent", author: string) =>
  queryOptions({
    queryKey: inboxKeys.list(kind, author),
    queryFn: () =>
      kind === "inbox"
        ? inboxApi.readInbox(author, { unread_only: false, peek: true, limit: 500 })
        : inboxApi.listSent(author, { limit: 500 }),
  });

/** The thread a message is in, oldest first, as `author` sees it. */
export const threadQuery = (author: string, message: string) =>
  queryOptions<BusMessage[], ApiError>({ queryKey: inboxKeys.thread(author, message), queryFn: () => inboxApi.readThread(author, message) });

/** A full-text search over `author`'s mail, best match first. */
export const searchQuery = (author: string, query: string) =>
  queryOptions<BusMessage[], ApiError>({ queryKey: inboxKeys.search(author, query), queryFn: () => inboxApi.search(author, query, 50) });

export const serverQuery = queryOptions({ queryKey: inboxKeys.server, queryFn: inboxApi.serverStatus });

/** What to refetch when the backend reports a committed change. */
export function invalidateInboxFor(client: QueryClient, change: Change) {
  if (change === "messages") {
    void client.invalidateQueries({ queryKey: inboxKeys.messages });
    void client.invalidateQueries({ queryKey: inboxKeys.authors });
  }
  if (change === "authors" || change === "users" || change === "agents") {
    void client.invalidateQueries({ queryKey: inboxKeys.authors });
  }
}

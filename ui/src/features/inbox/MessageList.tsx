import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Inbox } from "lucide-react";

import type { ApiError, Author } from "../../api";
import { Banner } from "../../components/Banner";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { errorText } from "../../app/errorText";
import { MessageCard } from "./MessageCard";
import { messagesQuery } from "./queries";

/** An author's inbox or sent mail, newest first. Each message opens its
 * thread; the person may reply to mail they are part of. */
export function MessageList({
  author,
  tab,
  authors,
  onOpen,
}: {
  author: Author;
  tab: "inbox" | "sent";
  authors: Author[];
  onOpen(messageId: string, replying: boolean): void;
}) {
  const { t } = useTranslation();
  const messages = useQuery(messagesQuery(tab, author.id));
  const [failure, setFailure] = useState<ApiError | null>(null);
  const owner = authors.find((a) => a.isOwner)?.id;
  // Newest first on screen; the API gives oldest first.
  const list = [...(messages.data ?? [])].reverse();

  if (messages.isPending) return <Spinner />;
  if (list.length === 0)
    return (
      <EmptyState
        icon={<Inbox size={28} />}
        title={tab === "inbox" ? t("inbox.emptyInbox") : t("inbox.emptySent")}
        body={tab === "inbox" ? (author.isOwner ? t("inbox.emptyMyInboxBody") : t("inbox.emptyInboxBody")) : t("inbox.emptySentBody")}
      />
    );
  return (
    <>
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      <ul className="bus-list" data-testid={`${tab}-list`}>
        {list.map((m) => (
          <MessageCard
            key={m.id}
            message={m}
            author={author}
            authors={authors}
            side={tab}
            onOpen={() => onOpen(m.id, false)}
            onReply={owner && (m.from === owner || m.to === owner) ? () => onOpen(m.id, true) : undefined}
            onError={setFailure}
          />
        ))}
      </ul>
    </>
  );
}

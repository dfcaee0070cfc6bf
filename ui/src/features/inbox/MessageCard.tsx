import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { CornerUpLeft, MailOpen, Mail, MessagesSquare, Trash2, Zap } from "lucide-react";

import { inboxApi, type ApiError, type Author, type BusMessage } from "../../api";
import { Button } from "../../components/Button";
import { useDates } from "../../app/dates";
import { authorName } from "../../app/names";
import { inboxKeys } from "./queries";

/** How a message is shown: from the inbox side (its sender) or the sent
 * side (its recipient), or both ends in a thread. */
export type CardSide = "inbox" | "sent" | "thread";

interface MessageCardProps {
  message: BusMessage;
  /** Whose mail this is (the author whose inbox, sent mail or thread it is). */
  author: Author;
  authors: Author[];
  side: CardSide;
  /** Opens the thread the message is in (absent: already in it). */
  onOpen?(): void;
  /** Answer it (absent: the person is not part of it). */
  onReply?(): void;
  onError(error: ApiError): void;
  /** After the person deleted it. */
  onDeleted?(): void;
}

/** One bus message with what the person may do with it: open its thread,
 * reply, mark read or unread (in their own inbox), delete (what they sent). */
export function MessageCard({ message: m, author, authors, side, onOpen, onReply, onError, onDeleted }: MessageCardProps) {
  const { t } = useTranslation();
  const { when, exact } = useDates();
  const client = useQueryClient();
  const name = (id: string) => {
    const found = authors.find((a) => a.id === id);
    return found ? authorName(t, found) : id;
  };
  // The person's own author, named plainly ("To you"), as elsewhere.
  const isYou = (id: string) => authors.some((a) => a.id === id && a.isOwner && a.name === a.id);
  const refresh = () => void client.invalidateQueries({ queryKey: inboxKeys.messages });
  const options = { onSuccess: refresh, onError };
  const markRead = useMutation<number, ApiError>({ mutationFn: () => inboxApi.markRead(author.id, [m.id]), ...options });
  const markUnread = useMutation<number, ApiError>({ mutationFn: () => inboxApi.markUnread(author.id, [m.id]), ...options });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => inboxApi.deleteMessage(m.id),
    onSuccess: () => {
      onDeleted?.();
      refresh();
    },
    onError,
  });
  const received = m.to === author.id;
  const unread = received && !m.read_at;
  // The person works their own mail; another author's is looked at only.
  const mine = author.isOwner;
  const who =
    side === "thread" ? (
      <>
        <strong>{name(m.from)}</strong>
        <span className="muted small">{isYou(m.to) ? t("inboxThreads.toYou") : t("inboxThreads.toName", { name: name(m.to) })}</span>
      </>
    ) : (
      <strong>{side === "inbox" ? name(m.from) : isYou(m.to) ? t("names.toYou") : t("inbox.toName", { name: name(m.to) })}</strong>
    );
  return (
    <li
      className={["bus-message", unread ? "unread" : "", m.priority === "urgent" ? "urgent" : ""].join(" ")}
      data-testid={`message-${m.id}`}
      data-unread={unread ? "true" : "false"}
    >
      <div className="bus-meta">
        {unread && <span className="unread-dot" aria-label={t("inbox.unread")} />}
        {who}
        {m.priority === "urgent" && (
          <span className="badge badge-danger" data-testid="urgent-badge">
            <Zap size={12} aria-hidden="true" /> {t("inbox.priority.urgent")}
          </span>
        )}
        {m.reply_to && side !== "thread" && (
          <span className="badge" data-testid={`answers-${m.id}`}>
            <CornerUpLeft size={12} aria-hidden="true" /> {t("inboxThreads.isAnswer")}
          </span>
        )}
        <time className="muted small" dateTime={m.created_at} title={exact(m.created_at)}>
          {when(m.created_at)}
        </time>
        <span className="spacer" />
        {onOpen && (
          <Button size="sm" variant="ghost" icon={<MessagesSquare size={13} />} onClick={onOpen} data-testid={`open-thread-${m.id}`}>
            {t("inboxThreads.open")}
          </Button>
        )}
        {onReply && (
          <Button size="sm" variant="ghost" icon={<CornerUpLeft size={13} />} onClick={onReply} data-testid={`reply-${m.id}`}>
            {t("inboxThreads.reply")}
          </Button>
        )}
        {mine && received && unread && (
          <Button size="sm" variant="ghost" icon={<MailOpen size={13} />} busy={markRead.isPending} onClick={() => markRead.mutate()} data-testid={`mark-read-${m.id}`}>
            {t("inbox.markRead")}
          </Button>
        )}
        {mine && received && !unread && (
          <Button size="sm" variant="ghost" icon={<Mail size={13} />} busy={markUnread.isPending} onClick={() => markUnread.mutate()} data-testid={`mark-unread-${m.id}`}>
            {t("inboxThreads.markUnread")}
          </Button>
        )}
        {mine && m.from === author.id && (
          <Button size="sm" variant="ghost" icon={<Trash2 size={13} />} busy={remove.isPending} onClick={() => remove.mutate()} data-testid={`delete-${m.id}`}>
            {t("common.delete")}
          </Button>
        )}
      </div>
      <p className="bus-body">{m.body}</p>
    </li>
  );
}
